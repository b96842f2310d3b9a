import Testing

@testable import Unidirectional

/// A case path made from a closure that changes its argument makes the right case, so the tag
/// test accepts it: debug builds check the round trip on each matching `extract`, and stop.
@Suite struct CasePathRoundTripTests {
  enum Action: Equatable, Sendable {
    case remove(id: Int)
    case add(Int)
    case measure(Double)
  }

  /// Not `Equatable`: nothing can be said, so nothing is.
  enum Opaque: Sendable {
    case remove(id: Int)
  }

  @Test func aConstructorRoundTrips() {
    #expect(CasePath<Action, Int>.roundTripProblem(.remove(id: 5), 5, .remove(id: 5)) == nil)
    let path = CasePath<Action, Int>.case(Action.remove)
    #expect(path.extract(.remove(id: 5)) == 5)
    #expect(path.extract(.add(5)) == nil)
  }

  @Test func aClosureThatChangesItsArgumentIsNamed() {
    let problem = CasePath<Action, Int>.roundTripProblem(.remove(id: 5), 5, .remove(id: 6))
    #expect(
      problem
        == "Unidirectional: CasePath<Action, Int> is not a case path: it extracted 5 from "
        + "UnidirectionalTests.CasePathRoundTripTests.Action.remove(id: 5), but its embed "
        + "closure makes UnidirectionalTests.CasePathRoundTripTests.Action.remove(id: 6) of it. "
        + "Pass the case's constructor itself, not a closure that changes its argument, or use "
        + "CasePath(embed, extract:) with a pattern match that undoes embed.")
  }

  /// Never a guess: a root that is not `Equatable`, or not equal to itself (a NaN payload), is
  /// let through.
  @Test func whatCannotBeKnownIsNotReported() {
    #expect(CasePath<Opaque, Int>.roundTripProblem(.remove(id: 5), 5, .remove(id: 6)) == nil)
    #expect(
      CasePath<Action, Double>.roundTripProblem(.measure(.nan), .nan, .measure(.nan)) == nil)
    // A real case path whose payload is a NaN extracts it, in a debug build too.
    let measure = CasePath<Action, Double>.case(Action.measure)
    #expect(measure.extract(.measure(.nan))?.isNaN == true)
    let opaque = CasePath<Opaque, Int>.case { Opaque.remove(id: $0 + 1) }
    #expect(opaque.extract(.remove(id: 5)) == 5)
  }

  #if DEBUG
    /// The case path: `extract` stops the program at the first value it matches, with
    /// the message, instead of handing out payloads that do not embed back.
    @Test func aClosureThatChangesItsArgumentStopsAtItsFirstMatch() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        let path = CasePath<Action, Int>.case { Action.remove(id: $0 + 1) }
        #expect(path.extract(.add(1)) == nil)  // Another case: no payload, no check.
        _ = path.extract(.remove(id: 5))
      }
      let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(said.contains("CasePath<Action, Int> is not a case path: it extracted 5"), "\(said)")
    }
  #endif
}
