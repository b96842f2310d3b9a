import Dispatch
import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// Issues a storage reported, for tests to read.
final class ReportedIssues: Sendable {
  private let issues = Locked<[SharedStorageError]>([])

  var all: [SharedStorageError] { issues.withLock { $0 } }

  func record(_ issue: SharedStorageError) {
    issues.withLock { $0.append(issue) }
  }
}

/// Makes `Shared` values in `storage`.
func inStorage<Result>(_ storage: SharedStorage, _ body: () -> Result) -> Result {
  withDependencies {
    $0.sharedStorage = storage
  } operation: {
    body()
  }
}

@Suite struct SharedTests {
  @Test func sharedValuesOfOneNameAreOneValue() {
    let storage = SharedStorage()
    var first = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    first.withLock { $0 += 5 }
    let second = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    #expect(second.value == 5)
    #expect(first.value == 5)
    #expect(first.reference === second.reference)
  }

  @Test func theDefaultIsUsedOnlyForTheFirstValueOfAName() {
    let storage = SharedStorage()
    let first = inStorage(storage) { Shared(.inMemory("name"), default: "first") }
    let second = inStorage(storage) { Shared(.inMemory("name"), default: "second") }
    #expect(first.value == "first")
    #expect(second.value == "first")
  }

  @Test func valuesOfOneNameButDifferentTypesAreNotShared() {
    let storage = SharedStorage()
    var number = inStorage(storage) { Shared(.inMemory("x"), default: 1) }
    let text = inStorage(storage) { Shared(.inMemory("x"), default: "one") }
    number.withLock { $0 = 2 }
    #expect(text.value == "one")
  }

  @Test func storagesAreIsolated() {
    var inFirst = inStorage(SharedStorage()) { Shared(.inMemory("user"), default: "nobody") }
    inFirst.withLock { $0 = "ada" }
    let inSecond = inStorage(SharedStorage()) { Shared(.inMemory("user"), default: "nobody") }
    #expect(inSecond.value == "nobody")
  }

  @Test func aCopyKeepsItsValueUntilItIsChangedOrRefreshed() {
    let storage = SharedStorage()
    var writer = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    let copy = writer
    writer.withLock { $0 = 3 }
    // A state's copy changes only through `withLock` or the store's change action.
    #expect(copy.value == 0)
    #expect(writer.reference.current.value == 3)
    #expect(writer.version == copy.version + 1)
  }

  @Test func withLockReturnsWhatTheClosureReturnsAndRethrows() {
    struct Refused: Error {}
    var count = inStorage(SharedStorage()) { Shared(.inMemory("count"), default: 1) }
    let doubled = count.withLock { value -> Int in
      value *= 2
      return value
    }
    #expect(doubled == 2)
    #expect(throws: Refused.self) {
      try count.withLock { value in
        value = 100
        throw Refused()
      }
    }
    // The closure's change stands (the value is `inout`), and the lock was let go.
    #expect(count.withLock { $0 } == 100)
  }

  @Test func concurrentIncrementsInsideWithLockAreNeverLost() async {
    let storage = SharedStorage()
    let shared = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    let threads = 4
    let increments = 10_000
    let done = DispatchGroup()
    for _ in 0..<threads {
      done.enter()
      DispatchQueue.global().async {
        var mine = shared
        for _ in 0..<increments { mine.withLock { $0 += 1 } }
        done.leave()
      }
    }
    #expect(await finishes(done, within: .seconds(120)))
    #expect(shared.reference.current.value == threads * increments)
    #expect(shared.reference.current.version == UInt64(threads * increments))
  }

  @Test func subscribersHearEveryChangeWithItsVersion() {
    var shared = inStorage(SharedStorage()) { Shared(.inMemory("count"), default: 0) }
    let heard = Locked<[(Int, UInt64)]>([])
    let token = shared.reference.subscribe { value, version in
      heard.withLock { $0.append((value, version)) }
    }
    shared.withLock { $0 = 7 }
    shared.withLock { $0 += 1 }
    token.cancel()
    shared.withLock { $0 += 1 }
    #expect(heard.withLock { $0.map(\.0) } == [7, 8])
    #expect(heard.withLock { $0.map(\.1) } == [1, 2])
  }

  @Test func sharedValuesCompareAndHashByTheirCopies() {
    let storage = SharedStorage()
    var first = inStorage(storage) { Shared(.inMemory("a"), default: 1) }
    let second = inStorage(storage) { Shared(.inMemory("b"), default: 1) }
    #expect(first == second)
    #expect(first.hashValue == second.hashValue)
    first.withLock { $0 = 2 }
    #expect(first != second)
  }

  @Test func aKeyOfYourOwnLoadsOnceAndIsShared() {
    struct Counting: SharedKey {
      let loads: Locked<Int>
      var id: String { "counting" }
      func load(from storage: SharedStorage) throws -> Int? {
        loads.withLock { $0 += 1 }
        return 41
      }
    }
    let loads = Locked(0)
    let storage = SharedStorage()
    var first = inStorage(storage) { Shared(Counting(loads: loads), default: 0) }
    let second = inStorage(storage) { Shared(Counting(loads: loads), default: 0) }
    #expect(first.value == 41)
    #expect(second.value == 41)
    first.withLock { $0 += 1 }
    #expect(loads.withLock { $0 } == 1)
  }

  @Test func aLoadedValueIsAChangeFromTheDefaultThatAReplayTakes() {
    let storage = SharedStorage()
    storage.setFile("/tmp/loaded.json", to: Data("5\n".utf8))
    let loaded = inStorage(storage) { Shared(.file("/tmp/loaded.json"), default: 0) }
    let fresh = inStorage(storage) { Shared(.inMemory("fresh"), default: 0) }
    #expect(loaded.currentChange == SharedChange(value: 5, version: 1))
    #expect(fresh.currentChange == SharedChange(value: 0, version: 0))
    // A replay's storage starts from the default, and takes the value the session had.
    var replayed = inStorage(SharedStorage()) { Shared(.file("/tmp/loaded.json"), default: 0) }
    replayed.apply(loaded.currentChange)
    #expect(replayed.value == 5)
    #expect(replayed.withLock { $0 } == 5)
    // The live copy ignores it: it is not newer.
    var live = loaded
    live.apply(loaded.currentChange)
    #expect(live.version == 1)
  }

  @Test func aKeyThatFailsToLoadStartsFromTheDefaultAndIsReported() {
    struct Unreachable: SharedKey {
      struct Down: Error, CustomStringConvertible {
        var description: String { "the service is down" }
      }
      var id: String { "remote" }
      func load(from storage: SharedStorage) throws -> String? { throw Down() }
    }
    let issues = ReportedIssues()
    let storage = SharedStorage(onIssue: issues.record)
    let shared = inStorage(storage) { Shared(Unreachable(), default: "offline") }
    #expect(shared.value == "offline")
    #expect(issues.all.count == 1)
    #expect(issues.all.first?.description.contains("the service is down") == true)
  }
}
