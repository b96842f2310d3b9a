import Foundation
import Testing
import Unidirectional

struct Row: Identifiable, Equatable, Hashable, Codable, Sendable {
  var id: Int
  var title: String
}

@Suite struct IdentifiedArrayTests {
  let abc: IdentifiedArray<Row> = [
    Row(id: 1, title: "a"), Row(id: 2, title: "b"), Row(id: 3, title: "c"),
  ]

  @Test func lookupByID() {
    #expect(abc[id: 2]?.title == "b")
    #expect(abc[id: 9] == nil)
    #expect(abc.index(id: 3) == 2)
    #expect(abc.contains(id: 1))
    #expect(!abc.contains(id: 4))
    #expect(abc.ids == [1, 2, 3])
  }

  @Test func setByIDReplacesInPlaceAppendsOrRemoves() {
    var rows = abc
    rows[id: 2]?.title = "B"
    rows[id: 4] = Row(id: 4, title: "d")
    rows[id: 1] = nil
    #expect(
      rows.elementsArray == [
        Row(id: 2, title: "B"), Row(id: 3, title: "c"), Row(id: 4, title: "d"),
      ])
    #expect(rows.index(id: 4) == 2)
    #expect(rows.index(id: 2) == 0)
  }

  @Test func settingAMissingIDThroughOptionalChainingDoesNothing() {
    var rows = abc
    rows[id: 9]?.title = "x"
    #expect(rows == abc)
  }

  @Test func insertAndRemoveKeepOrderAndIndex() {
    var rows = abc
    rows.insert(Row(id: 0, title: "zero"), at: 0)
    #expect(rows.ids == [0, 1, 2, 3])
    #expect(rows.index(id: 3) == 3)
    #expect(rows.remove(id: 1)?.title == "a")
    #expect(rows.ids == [0, 2, 3])
    #expect(rows.index(id: 3) == 2)
    #expect(rows.remove(at: 0).id == 0)
    #expect(rows.ids == [2, 3])
    #expect(rows.remove(id: 42) == nil)
    rows.removeAll { $0.id == 2 }
    #expect(rows.ids == [3])
    #expect(rows[id: 3]?.title == "c")
    rows.removeAll()
    #expect(rows.isEmpty)
  }

  @Test func moveAndSortReindex() {
    var rows = abc
    rows.move(fromOffsets: [0], toOffset: 3)
    #expect(rows.ids == [2, 3, 1])
    #expect(rows.index(id: 1) == 2)
    rows.sort { $0.id < $1.id }
    #expect(rows.ids == [1, 2, 3])
    #expect(rows.index(id: 3) == 2)
  }

  @Test func randomAccessCollection() {
    #expect(abc.count == 3)
    #expect(abc.map(\.title) == ["a", "b", "c"])
    #expect(abc[abc.index(before: abc.endIndex)].id == 3)
    #expect(abc.reversed().map(\.id) == [3, 2, 1])
    var rows = abc
    rows[1].title = "B"
    #expect(rows[id: 2]?.title == "B")
  }

  @Test func equatableAndHashableFollowOrder() {
    let reversed = IdentifiedArray(uniqueElements: abc.reversed())
    #expect(abc != reversed)
    #expect(Set([abc, abc, reversed]).count == 2)
  }

  @Test func codableRoundTripsAsAnArray() throws {
    let data = try JSONEncoder().encode(abc)
    #expect(String(decoding: data, as: UTF8.self).hasPrefix("[{"))
    let decoded = try JSONDecoder().decode(IdentifiedArray<Row>.self, from: data)
    #expect(decoded == abc)
  }

  @Test func decodingDuplicateIDsThrowsNamingTheID() {
    let json = Data(#"[{"id":7,"title":"a"},{"id":7,"title":"b"}]"#.utf8)
    do {
      _ = try JSONDecoder().decode(IdentifiedArray<Row>.self, from: json)
      Issue.record("decoding duplicates should throw")
    } catch let DecodingError.dataCorrupted(context) {
      #expect(context.debugDescription.contains("duplicate id 7"))
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test func sendable() async {
    let rows = abc
    let count = await Task.detached { rows.count }.value
    #expect(count == 3)
  }

  @Test func duplicateIDsAreRejected() async {
    await #expect(processExitsWith: .failure) {
      var rows: IdentifiedArray<Row> = [Row(id: 1, title: "a")]
      rows.append(Row(id: 1, title: "again"))
    }
  }

  @Test func idsCannotChangeThroughPositions() async {
    await #expect(processExitsWith: .failure) {
      var rows: IdentifiedArray<Row> = [Row(id: 1, title: "a")]
      rows[0] = Row(id: 2, title: "b")
    }
  }
}
