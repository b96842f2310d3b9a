import Testing

@testable import Unidirectional

/// `Shared.latestValue`: the value now, read without changing it.
@Suite struct SharedLatestValueTests {
  @Test func theLatestValueIsTheOneValueNowWhateverTheCopyHolds() {
    let storage = SharedStorage()
    var first = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    let second = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    first.withLock { $0 += 3 }
    // The second state's copy has not received the change; the value has it.
    #expect(second.value == 0)
    #expect(second.latestValue == 3)
    #expect(first.latestValue == 3)
  }

  @Test func readingTheLatestValueIsNoChange() {
    let storage = SharedStorage()
    var count = inStorage(storage) { Shared(.inMemory("count"), default: 0) }
    count.withLock { $0 = 7 }
    let heard = Locked(0)
    let token = count.reference.subscribe { _, _ in heard.withLock { $0 += 1 } }
    let version = count.reference.current.version
    #expect(count.latestValue == 7)
    #expect(count.latestValue == 7)
    #expect(count.reference.current.version == version)
    #expect(heard.withLock { $0 } == 0)
    token.cancel()
  }
}
