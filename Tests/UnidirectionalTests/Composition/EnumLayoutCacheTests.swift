import Dispatch
import Testing

@testable import Unidirectional

/// The layouts of case paths made from constructors are cached in a table read without a lock
/// (a `body` makes its case paths on every action): threads that make the same and different
/// case paths at once must each get a case path that matches exactly its case.
@Suite struct EnumLayoutCacheTests {
  enum Choice<Payload: Sendable>: Sendable {
    case first(Payload)
    case second(Payload)
    case neither
  }

  struct Marker<Tag>: Equatable, Sendable {
    let value: Int
  }

  enum T0 {}
  enum T1 {}
  enum T2 {}
  enum T3 {}
  enum T4 {}
  enum T5 {}
  enum T6 {}
  enum T7 {}

  /// Makes both case paths of `Choice<Marker<Tag>>` and checks what they extract.
  static func check<Tag>(_: Tag.Type, value: Int) -> Bool {
    let first = CasePath<Choice<Marker<Tag>>, Marker<Tag>>.case(Choice.first)
    let second = CasePath<Choice<Marker<Tag>>, Marker<Tag>>.case(Choice.second)
    let marker = Marker<Tag>(value: value)
    return first.extract(.first(marker)) == marker
      && first.extract(.second(marker)) == nil
      && second.extract(.second(marker)) == marker
      && second.extract(.first(marker)) == nil
      && first.extract(.neither) == nil
  }

  static let checks: [@Sendable (Int) -> Bool] = [
    { check(T0.self, value: $0) }, { check(T1.self, value: $0) },
    { check(T2.self, value: $0) }, { check(T3.self, value: $0) },
    { check(T4.self, value: $0) }, { check(T5.self, value: $0) },
    { check(T6.self, value: $0) }, { check(T7.self, value: $0) },
    { check(Int.self, value: $0) }, { check(String.self, value: $0) },
    { check([Int].self, value: $0) }, { check(Double.self, value: $0) },
  ]

  @Test func threadsMakingCasePathsAtOnceGetTheirOwnCases() {
    let failures = Locked(0)
    // Eight threads, each going through every pair of types from a different start, so that
    // first look-ups of the same pair race.
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for round in 0..<200 {
        for index in Self.checks.indices {
          let check = Self.checks[(index + thread) % Self.checks.count]
          if !check(round) { failures.withLock { $0 += 1 } }
        }
      }
    }
    #expect(failures.withLock { $0 } == 0)
  }
}
