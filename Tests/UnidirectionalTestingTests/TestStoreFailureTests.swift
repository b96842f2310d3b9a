// Over 300 lines on purpose: one test per failure message of the test store, with the exact
// text each one prints.

import Testing
import Unidirectional
import UnidirectionalTesting

/// Every failure the test store reports, with its headline, message shape and location.
@Suite struct TestStoreFailureTests {
  @Test func aStateChangeThatDoesNotMatch() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      line = #line + 1
      await store.send(.increment) { $0.count = 2 }
    }
    #expect(failures.count == 1)
    #expect(failures.first?.line == line)
    #expect(
      failures.first?.message == """
        State change does not match expectation:

            Feature.State(
          −   count: 2,
          +   count: 1,
              fact: nil,
              isTimerOn: false,
              name: "counter"
            )

        (Expected: −, Actual: +)
        """)
  }

  @Test func aChangeWhenNoneWasExpected() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.rename("clock"))
    }
    #expect(
      failures.map(\.headline) == ["State was not expected to change, but a change occurred:"])
    #expect(failures.first?.message.contains("−   name: \"counter\"") == true)
    #expect(failures.first?.message.contains("+   name: \"clock\"") == true)
  }

  @Test func anExpectedChangeThatDidNotHappen() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.noop) { $0.count = 0 }
    }
    #expect(failures.map(\.headline) == ["Expected state to change, but no change occurred."])
  }

  @Test func observersThatFiredOrStayedSilentAreNamed() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      store.observe("count") { _ = $0.count }
      store.observe("name") { _ = $0.name }
      await store.send(.increment, fires: ["name"]) { $0.count = 1 }
      await store.send(.increment) { $0.count = 2 }
      await store.send(.noop, fires: ["name"])
    }
    #expect(
      failures.map(\.message) == [
        """
        Unexpected observers fired, and expected observers did not fire.

        Fired but not expected: "count"
        Expected but did not fire: "name"
        """,
        """
        Unexpected observers fired.

        Fired but not expected: "count"
        """,
        """
        Expected observers did not fire.

        Expected but did not fire: "name"
        """,
      ])
  }

  @Test func anUnexpectedReceivedAction() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.sendTwice)
      await store.receive(.second)
      await store.receive(.second)
    }
    #expect(
      failures.first?.message == """
        Received an unexpected action:

          − Feature.Action.second
          + Feature.Action.first

        (Expected: −, Actual: +)
        """)
    #expect(failures.count == 1)
  }

  @Test func noActionArrivesWhenNoEffectIsRunning() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.increment) { $0.count = 1 }
      await store.receive(.tick)
    }
    #expect(
      failures.map(\.message) == [
        """
        Expected to receive an action, but no effect is running that could send one:

            Feature.Action.tick
        """
      ])
  }

  @Test func noActionArrivesWithinTheTimeout() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.neverEnding)
      // wall-clock: zero: the failure is known once the executor is idle, without waiting.
      await store.receive(.tick, timeout: .zero)
      await store.skipInFlightEffects()
    }
    #expect(
      failures.map(\.headline) == [
        "Expected to receive an action, but none arrived within 0.0 seconds:"
      ])
  }

  @Test func actionsLeftUnreceivedAtTheEnd() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.sendTwice).finish()
      await store.finish()
    }
    #expect(
      failures.map(\.message) == [
        """
        The store received 2 unexpected action(s):

            Feature.Action.first
            Feature.Action.second
        """
      ])
  }

  @Test func actionsLeftUnreceivedWhenTheStoreIsReleased() async {
    var line = 0
    let failures = await recordedFailures {
      line = #line + 1
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.sendTwice).finish()
    }
    #expect(
      failures.map(\.headline) == [
        "The store received 2 unexpected action(s) by the end of the test:"
      ])
    #expect(failures.first?.line == line)
  }

  @Test func actionsLeftUnreceivedBeforeTheNextSend() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.factButtonTapped).finish()
      await store.send(.increment) { $0.count = 1 }
      #expect(store.state.fact == "0 is a test number.")
    }
    #expect(
      failures.map(\.headline) == ["Must handle 1 received action(s) before sending an action:"])
  }

  @Test func effectsStillRunningAtFinish() async {
    var lines: [Int] = []
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      lines.append(#line + 1)
      await store.send(.neverEnding)
      await store.send(.increment) { $0.count = 1 }
      lines.append(#line + 1)
      await store.send(.neverEnding)
      // wall-clock: zero: the failure is known once the executor is idle, without waiting.
      await store.finish(timeout: .zero)
    }
    #expect(failures.map(\.line) == lines)
    #expect(
      failures.allSatisfy {
        $0.headline.hasPrefix(
          "An effect is still running at the end of the test (waited up to 0.0 seconds")
      })
  }

  @Test func effectsStillRunningWhenTheStoreIsReleased() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      store.timeout = .milliseconds(10)
      line = #line + 1
      await store.send(.neverEnding)
    }
    #expect(failures.map(\.line) == [line])
    #expect(
      failures.first?.headline.hasPrefix(
        "An effect is still running at the end of the test (the test store was released "
          + "without 'finish()')") == true)
  }

  @Test func aDependencyWithoutATestValueIsNamed() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.useLiveOnly) { $0.count = 42 }
    }
    #expect(failures.count == 1)
    #expect(failures.first?.message.contains("'LiveOnlyClient'") == true)
  }

  @Test func anEffectThatThrowsFailsTheTest() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.throwInEffect).finish()
    }
    #expect(failures.count == 1)
    #expect(failures.first?.message.contains("Failure") == true)
  }

  @Test func aDuplicateObserverNameIsReported() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      store.observe("count") { _ = $0.count }
      store.observe("count") { _ = $0.name }
      await store.send(.rename("x"), fires: []) { $0.name = "x" }
    }
    #expect(failures.map(\.headline) == ["An observer named \"count\" is already registered."])
  }

  @Test func nonExhaustiveStillFailsOnWhatIsStated() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      store.exhaustivity = .off
      store.observe("name") { _ = $0.name }
      await store.send(.increment) { $0.count = 5 }
      await store.send(.increment, fires: ["name"])
    }
    #expect(
      failures.map(\.headline) == [
        "State change does not match expectation:", "Expected observers did not fire.",
      ])
  }
}

/// A parent with an optional child, for the message about a child that is absent.
private struct Parent: Reducer {
  struct Child: Reducer {
    struct State: Equatable, Sendable { var value = 0 }
    enum Action: Equatable, Sendable { case bump }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.value += 1
      return .none
    }
  }
  struct State: Equatable, Sendable { var child: Child.State? }
  enum Action: Equatable, Sendable { case child(Child.Action) }

  var body: some Reducer<State, Action> {
    EmptyReducer()
      .ifLet(
        \.child, action: CasePath(Action.child) { if case .child(let a) = $0 { a } else { nil } }
      ) {
        Child()
      }
  }
}

/// Failures added for the test store's parity with production.
@Suite struct TestStoreEndAndStepFailureTests {
  @Test func anActionAnEffectSendsLateIsReportedByFinish() async {
    // The effect sends after a short wall-clock wait: `finish` must wait for it before
    // checking for unreceived actions.
    struct Late: Reducer {
      func reduce(into state: inout Int, action: Bool) -> Effect<Bool> {
        guard action else {
          state += 1
          return .none
        }
        return .run { send in
          // wall-clock: real work outside the executor (a 50 ms timer); the steps wait for it as a fact.
          try await Task.sleep(for: .milliseconds(50))
          await send(false)
        }
      }
    }
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: 0) { Late() }
      store.timeout = .seconds(10)  // Generous: the effect needs 50 ms, on a loaded machine more.
      await store.send(true)
      line = #line + 1
      await store.finish()
    }
    #expect(failures.map(\.headline) == ["The store received 1 unexpected action(s):"])
    #expect(failures.first?.line == line)
  }

  @Test func anUnexpectedActionThatChangesStateIsOneFailure() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.factButtonTapped)
      line = #line + 1
      await store.receive(.tick)
      await store.finish()
    }
    #expect(failures.count == 1)
    #expect(failures.first?.line == line)
    #expect(
      failures.first?.message == """
        Received an unexpected action:

          − Feature.Action.tick
          + Feature.Action.factResponse("0 is a test number.")

        (Expected: −, Actual: +)
        """)
  }

  @Test func aPayloadThatDiffersIsShownAsADiff() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.factButtonTapped)
      await store.receive(.factResponse, "0 is a number.") { $0.fact = "0 is a number." }
    }
    #expect(failures.count == 1)
    #expect(failures.first?.headline == "Received an unexpected action:")
    #expect(
      failures.first?.message.contains("− Feature.Action.factResponse(\"0 is a number.\")") == true)
    #expect(
      failures.first?.message.contains("+ Feature.Action.factResponse(\"0 is a test number.\")")
        == true)
  }

  @Test func anActionForAnAbsentChildNamesTheChildAndTheAction() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Parent.State()) { Parent() }
      line = #line + 1
      await store.send(.child(.bump))
    }
    #expect(failures.count == 1)
    #expect(failures.first?.line == line)
    #expect(
      failures.first?.message.contains(
        "received Parent.Action.child(Parent.Child.Action.bump) while the optional "
          + "Parent.Child.State was absent") == true)
  }

  @Test func sendingAfterFinishFails() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.finish()
      line = #line + 1
      await store.send(.increment) { $0.count = 1 }
      #expect(store.state.count == 0)
    }
    #expect(failures.map(\.headline) == ["Sent an action after the test store finished:"])
    #expect(failures.first?.line == line)
  }

  @Test func anAssertionOfTheStateThatDoesNotMatch() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.increment) { $0.count = 1 }
      store.assert { $0.count = 2 }
    }
    #expect(failures.map(\.headline) == ["State does not match expectation:"])
    #expect(failures.first?.message.contains("−   count: 2,") == true)
  }

  @Test func assertingTheStateWithActionsLeftToReceive() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.factButtonTapped)
      store.assert { $0.fact = "0 is a test number." }
    }
    #expect(
      failures.map(\.headline) == [
        "Must handle 1 received action(s) before asserting the state:"
      ])
  }
}
