import Foundation
import Unidirectional
import UnidirectionalTestSupport

// Shared by the Review* tests: a store whose actions are closures, so that each test says what
// its action does where it sends it.

struct ReviewRow: Identifiable, Equatable, Sendable {
  let id: Int
  var title = ""
}

struct ReviewChild: Equatable, Sendable {
  var count = 0
}

struct ReviewState: Sendable {
  var count = 0
  var flag = false
  var other = 0
  var items: [Int] = []
  var value = 0.0
  var child: ReviewChild? = nil
  var rows: IdentifiedArray<ReviewRow> = []
}

struct ReviewAction: Sendable {
  let apply: @Sendable (inout ReviewState) -> Void
  init(_ apply: @escaping @Sendable (inout ReviewState) -> Void) { self.apply = apply }
}

typealias ReviewStore = Store<ReviewState, ReviewAction>

func makeReviewStore(_ state: ReviewState = ReviewState()) -> ReviewStore {
  Store(
    initialState: state,
    reducer: Reduce<ReviewState, ReviewAction> { state, action in
      action.apply(&state)
      return .none
    })
}

/// A slot for a value made after the closure that uses it (a token an observer cancels).
final class ReviewBox<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var _value: Value?
  init(_ value: Value? = nil) { _value = value }
  var value: Value? {
    get { lock.withLock { _value } }
    set { lock.withLock { _value = newValue } }
  }
  /// Takes the value out (so that it is released by the caller, outside the lock).
  func take() -> Value? { lock.withLock { defer { _value = nil }; return _value } }
}

/// Runs `body` on a new thread and waits for it at most `seconds`: `false` if it did not finish
/// (a hang).
func reviewFinishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    body()
    done.signal()
  }
  thread.stackSize = 8 << 20
  thread.start()
  return done.wait(timeout: .now() + seconds) == .success
}
