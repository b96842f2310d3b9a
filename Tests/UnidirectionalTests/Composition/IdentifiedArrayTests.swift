// Over 300 lines on purpose: every operation of `IdentifiedArray`, each with its invariants
// checked after it; split by operation would repeat the fixtures.

import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

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

  /// An edit through `subscript(id:)` edits the element in place: the storage inside it (an
  /// array of the row) is not copied, so appending to it is O(1) as for a local variable, not
  /// O(n) per append.
  @Test func anEditThroughTheSubscriptDoesNotCopyTheElementsStorage() {
    struct Project: Identifiable, Equatable {
      var id: Int
      var tasks: [Int]
    }
    var tasks: [Int] = [1, 2, 3]
    tasks.reserveCapacity(64)
    var projects: IdentifiedArray<Project> = [
      Project(id: 1, tasks: []), Project(id: 2, tasks: tasks), Project(id: 3, tasks: []),
    ]
    tasks = []
    func storage() -> UnsafeRawPointer? {
      projects.elementsArray[1].tasks.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
    let before = storage()
    projects[id: 2]?.tasks.append(4)
    #expect(storage() == before)
    #expect(projects[id: 2]?.tasks == [1, 2, 3, 4])
    #expect(projects.ids == [1, 2, 3])
    projects[id: 1]?.tasks.append(7)
    projects[id: 1]?.tasks.append(8)
    #expect(projects.elementsArray.map(\.tasks) == [[7, 8], [1, 2, 3, 4], []])
    // An in-place edit that removes the element keeps the others in order, and their ids found.
    func clear(_ project: inout Project?) { project = nil }
    clear(&projects[id: 2])
    #expect(projects.elementsArray == [Project(id: 1, tasks: [7, 8]), Project(id: 3, tasks: [])])
    #expect(projects[id: 3]?.id == 3)
    clear(&projects[id: 3])
    #expect(projects.ids == [1])
    projects.append(contentsOf: (4...6).map { Project(id: $0, tasks: [$0]) })
    clear(&projects[id: 1])
    #expect(projects.ids == [4, 5, 6])
    #expect(projects.ids.map { projects[id: $0]?.tasks } == [[4], [5], [6]])
  }

  /// The same edits of an element with no references (copied out, not moved).
  @Test func editsThroughTheSubscriptOfTrivialElements() {
    struct Cell: Identifiable, Equatable {
      var id: Int
      var value: Int
    }
    var cells: IdentifiedArray<Cell> = [Cell(id: 1, value: 0), Cell(id: 2, value: 0)]
    cells[id: 1]?.value += 5
    cells[id: 3]?.value += 5
    #expect(cells.elementsArray == [Cell(id: 1, value: 5), Cell(id: 2, value: 0)])
    func clear(_ cell: inout Cell?) { cell = nil }
    clear(&cells[id: 1])
    #expect(cells.elementsArray == [Cell(id: 2, value: 0)])
    #expect(cells[id: 2]?.value == 0)
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

  @Test func moveTreatsRepeatedOffsetsAsOne() {
    var rows = abc
    rows.move(fromOffsets: [0, 0], toOffset: 3)
    #expect(rows.ids == [2, 3, 1])
    expectConsistent(rows)
  }

  @Test func moveToANegativeDestinationStops() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      var rows: IdentifiedArray<Row> = [
        Row(id: 1, title: "a"), Row(id: 2, title: "b"), Row(id: 3, title: "c"),
      ]
      // Used to drop row 1, after which `rows[id: 1]` found row 2.
      rows.move(fromOffsets: [0], toOffset: -1)
    }
    // Optimized builds stop without printing a precondition's message.
    #if DEBUG
      #expect(
        result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?
          .contains("IdentifiedArray: move destination -1 is out of bounds 0...3") == true)
    #else
      #expect(result != nil)
    #endif
  }

  @Test(arguments: [
    // (offsets, destination, resulting ids) for the ids [1, 2, 3, 4]
    ([3, 0, 3], 2, [2, 1, 4, 3]),
    ([0], 0, [1, 2, 3, 4]),
    ([0], 1, [1, 2, 3, 4]),
    ([0], 2, [2, 1, 3, 4]),
    ([0], 4, [2, 3, 4, 1]),
    ([3], 0, [4, 1, 2, 3]),
    ([1, 2], 2, [1, 2, 3, 4]),
    ([1, 2], 3, [1, 2, 3, 4]),
    ([2, 1, 1, 2], 0, [2, 3, 1, 4]),
    ([0, 1, 2, 3], 4, [1, 2, 3, 4]),
    ([], 2, [1, 2, 3, 4]),
  ])
  func moveMovesTheOffsetsAsASetToBeforeTheDestination(
    offsets: [Int], destination: Int, expected: [Int]
  ) {
    var rows = IdentifiedArray(uniqueElements: (1...4).map { Row(id: $0, title: "\($0)") })
    rows.move(fromOffsets: offsets, toOffset: destination)
    #expect(rows.ids == expected)
    expectConsistent(rows)
  }

  @Test func swapAtExchangesElementsAndTheirPositions() {
    var rows = abc
    rows.swapAt(0, 2)
    #expect(rows.ids == [3, 2, 1])
    rows.swapAt(1, 1)
    #expect(rows.ids == [3, 2, 1])
    #expect(rows[id: 1]?.title == "a")
    expectConsistent(rows)
  }

  @Test func removeAllWhereThatThrowsLeavesTheArrayUnchanged() {
    var rows = abc
    #expect(throws: Failure.self) {
      try rows.removeAll { row in
        if row.id == 3 { throw Failure() }
        return row.id == 1
      }
    }
    #expect(rows == abc)
    expectConsistent(rows)
    rows.removeAll { $0.id != 2 }
    #expect(rows.ids == [2])
    expectConsistent(rows)
  }

  @Test func sortThatThrowsKeepsLookupsRight() {
    var random = SplitMix64(seed: 7)
    for callsBeforeThrowing in 0..<60 {
      var rows = IdentifiedArray(
        uniqueElements: (0..<40).shuffled(using: &random).map { Row(id: $0, title: "") })
      var calls = 0
      #expect(throws: Failure.self) {
        try rows.sort { lhs, rhs in
          calls += 1
          if calls > callsBeforeThrowing { throw Failure() }
          return lhs.id < rhs.id
        }
      }
      #expect(Set(rows.ids) == Set(0..<40))
      expectConsistent(rows)
    }
  }

  @Test func anEditByIDThatThrowsIsKept() {
    func edit(_ row: inout Row?, to newRow: Row?) throws {
      row = newRow
      throw Failure()
    }
    var rows = abc
    #expect(throws: Failure.self) { try edit(&rows[id: 2], to: Row(id: 2, title: "B")) }
    #expect(rows[id: 2]?.title == "B")
    #expect(throws: Failure.self) { try edit(&rows[id: 1], to: nil) }
    #expect(rows.ids == [2, 3])
    #expect(throws: Failure.self) { try edit(&rows[id: 4], to: Row(id: 4, title: "d")) }
    #expect(rows.ids == [2, 3, 4])
    expectConsistent(rows)
  }

  @Test(arguments: Misuse.allCases)
  func misuseStopsNamingWhatWasWrong(_ misuse: Misuse) async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { [misuse] in
      misuse.perform()
    }
    // Optimized builds stop without printing a precondition's message.
    #if DEBUG
      let output = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
      #expect(output.contains(misuse.message), "standard error: \(output)")
    #else
      #expect(result != nil)
    #endif
  }

  /// Applies random valid mutations to an array and to a plain `[Row]` model of it, checking
  /// after each that they agree and that every id finds its element.
  @Test func randomMutationsKeepIDsUniqueAndLookupsRight() {
    var random = SplitMix64(seed: 0x1D_A77A)
    var rows = IdentifiedArray<Row>()
    var model: [Row] = []
    var stamp = 0
    /// An id not in the array (ids are reused after removal), if there is room.
    func missingID() -> Int? {
      guard model.count < 48 else { return nil }
      while true {
        let id = Int.random(in: 0..<64, using: &random)
        if !model.contains(where: { $0.id == id }) { return id }
      }
    }
    func newTitle() -> String {
      stamp += 1
      return "t\(stamp % 7)-\(stamp)"
    }
    for step in 0..<5_000 {
      let operation = Int.random(in: 0..<14, using: &random)
      switch operation {
      case 0, 1:
        let offsets = (0..<Int.random(in: 0...6, using: &random)).compactMap { _ in
          model.indices.randomElement(using: &random)
        }
        let destination = Int.random(in: 0...model.count, using: &random)
        rows.move(fromOffsets: offsets, toOffset: destination)
        let moving = Set(offsets)
        let moved = model.indices.filter(moving.contains).map { model[$0] }
        var rest = model.indices.filter { !moving.contains($0) }.map { model[$0] }
        rest.insert(contentsOf: moved, at: destination - moving.count { $0 < destination })
        model = rest
      case 2:
        guard let i = model.indices.randomElement(using: &random),
          let j = model.indices.randomElement(using: &random)
        else { continue }
        rows.swapAt(i, j)
        model.swapAt(i, j)
      case 3, 4:
        guard let id = missingID() else { continue }
        let row = Row(id: id, title: newTitle())
        let position = Int.random(in: 0...model.count, using: &random)
        rows.insert(row, at: position)
        model.insert(row, at: position)
      case 5:
        guard let position = model.indices.randomElement(using: &random) else { continue }
        #expect(rows.remove(at: position) == model.remove(at: position))
      case 6:
        let id = Int.random(in: 0..<64, using: &random)
        let index = model.firstIndex { $0.id == id }
        #expect(rows.remove(id: id) == index.map { model.remove(at: $0) })
      case 7:
        let divisor = Int.random(in: 2...9, using: &random)
        rows.removeAll { $0.id % divisor == 0 }
        model.removeAll { $0.id % divisor == 0 }
      case 8:
        if Bool.random(using: &random) {
          rows.sort { $0.title < $1.title }
          model = rows.elementsArray  // unstable sort: take its order, check it is sorted
          #expect(model.map(\.title) == model.map(\.title).sorted())
        } else {
          rows.sort { $0.id > $1.id }
          model.sort { $0.id > $1.id }
        }
      case 9:
        guard let position = model.indices.randomElement(using: &random) else { continue }
        let row = Row(id: model[position].id, title: newTitle())
        rows[position] = row
        model[position] = row
      case 10:
        guard let id = model.randomElement(using: &random)?.id ?? missingID() else { continue }
        let title = newTitle()
        rows[id: id]?.title = title
        if let index = model.firstIndex(where: { $0.id == id }) { model[index].title = title }
      case 11:
        let existingID = model.randomElement(using: &random)?.id
        guard let id = Bool.random(using: &random) ? missingID() : existingID else { continue }
        let row = Row(id: id, title: newTitle())
        rows[id: id] = row
        if let index = model.firstIndex(where: { $0.id == id }) {
          model[index] = row
        } else {
          model.append(row)
        }
      case 12:
        guard let id = model.randomElement(using: &random)?.id else { continue }
        rows[id: id] = nil
        model.removeAll { $0.id == id }
      default:
        var added: [Row] = []
        for _ in 0..<Int.random(in: 0...3, using: &random) {
          guard let id = missingID(), !added.contains(where: { $0.id == id }) else { break }
          added.append(Row(id: id, title: newTitle()))
        }
        if added.count == 1 { rows.append(added[0]) } else { rows.append(contentsOf: added) }
        model.append(contentsOf: added)
        if model.count >= 48 && Bool.random(using: &random) {
          rows.removeAll()
          model.removeAll()
        }
      }
      #expect(rows.elementsArray == model, "step \(step), operation \(operation)")
      #expect(Set(rows.ids).count == rows.count, "step \(step): ids are not unique")
      for (position, row) in model.enumerated() {
        #expect(rows[id: row.id] == row, "step \(step)")
        #expect(rows.index(id: row.id) == position, "step \(step)")
      }
      if let id = missingID() { #expect(rows[id: id] == nil, "step \(step)") }
    }
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

/// Checks through the public API that `rows` has unique ids and finds each element by its id.
func expectConsistent<Element: Identifiable & Equatable>(
  _ rows: IdentifiedArray<Element>, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(Set(rows.ids).count == rows.count, "ids are not unique", sourceLocation: sourceLocation)
  for (position, element) in rows.enumerated() {
    #expect(rows[id: element.id] == element, sourceLocation: sourceLocation)
    #expect(rows.index(id: element.id) == position, sourceLocation: sourceLocation)
  }
}

/// An error thrown by test closures.
private struct Failure: Error {}

/// A misuse of `IdentifiedArray` that must stop the process, and what it must say.
enum Misuse: String, CaseIterable, Codable, Sendable {
  case moveDestinationBelowZero, moveDestinationPastTheEnd, moveOffsetOutOfBounds
  case insertDuplicateID, insertOutOfBounds, appendDuplicateID, appendContentsOfRepeatedID
  case removeAtOutOfBounds, swapAtOutOfBounds, swapAtSecondOutOfBounds
  case readPositionOutOfBounds, writePositionOutOfBounds, changeIDThroughPosition
  case storeUnderAnotherID, changeIDThroughID, storeMissingIDUnderAnotherID

  /// What the precondition failure must say.
  var message: String {
    switch self {
    case .moveDestinationBelowZero: "IdentifiedArray: move destination -1 is out of bounds 0...3"
    case .moveDestinationPastTheEnd: "IdentifiedArray: move destination 4 is out of bounds 0...3"
    case .moveOffsetOutOfBounds: "IdentifiedArray: move offset 3 is out of bounds 0..<3"
    case .insertDuplicateID, .appendDuplicateID, .appendContentsOfRepeatedID:
      "IdentifiedArray: an element with id 2 is already present; ids must be unique"
    case .insertOutOfBounds: "IdentifiedArray: insertion position 4 is out of bounds 0...3"
    case .removeAtOutOfBounds: "IdentifiedArray: removal position 3 is out of bounds 0..<3"
    case .swapAtOutOfBounds: "IdentifiedArray: swap position -1 is out of bounds 0..<3"
    case .swapAtSecondOutOfBounds: "IdentifiedArray: swap position 3 is out of bounds 0..<3"
    case .readPositionOutOfBounds, .writePositionOutOfBounds:
      "IdentifiedArray: position 3 is out of bounds 0..<3"
    case .changeIDThroughPosition:
      "IdentifiedArray: cannot replace the element with id 1 at 0 by one with id 9"
    case .storeUnderAnotherID, .storeMissingIDUnderAnotherID:
      "IdentifiedArray: cannot store an element with id 9 under id"
    case .changeIDThroughID:
      "IdentifiedArray: an element's id changed from 1 to 2 through subscript(id:)"
    }
  }

  /// Does the misuse to the rows 1, 2 and 3.
  func perform() {
    var rows: IdentifiedArray<Row> = [
      Row(id: 1, title: "a"), Row(id: 2, title: "b"), Row(id: 3, title: "c"),
    ]
    switch self {
    case .moveDestinationBelowZero: rows.move(fromOffsets: [0], toOffset: -1)
    case .moveDestinationPastTheEnd: rows.move(fromOffsets: [0], toOffset: 4)
    case .moveOffsetOutOfBounds: rows.move(fromOffsets: [0, 3], toOffset: 1)
    case .insertDuplicateID: rows.insert(Row(id: 2, title: "again"), at: 0)
    case .insertOutOfBounds: rows.insert(Row(id: 4, title: "d"), at: 4)
    case .appendDuplicateID: rows.append(Row(id: 2, title: "again"))
    case .appendContentsOfRepeatedID:
      rows.remove(id: 2)
      rows.append(contentsOf: [Row(id: 2, title: "b"), Row(id: 2, title: "again")])
    case .removeAtOutOfBounds: rows.remove(at: 3)
    case .swapAtOutOfBounds: rows.swapAt(-1, 0)
    case .swapAtSecondOutOfBounds: rows.swapAt(0, 3)
    case .readPositionOutOfBounds: _ = rows[3]
    case .writePositionOutOfBounds: rows[3] = Row(id: 3, title: "c")
    case .changeIDThroughPosition: rows[0] = Row(id: 9, title: "a")
    case .storeUnderAnotherID: rows[id: 1] = Row(id: 9, title: "a")
    case .changeIDThroughID: rows[id: 1]?.id = 2
    case .storeMissingIDUnderAnotherID:
      func put(_ row: inout Row?) { row = Row(id: 9, title: "a") }
      put(&rows[id: 4])
    }
    print("still running: \(rows)")
  }
}
