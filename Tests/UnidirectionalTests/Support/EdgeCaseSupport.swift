import Foundation
import Unidirectional
import UnidirectionalTestSupport

// Shared by the edge-case tests (ChildStoreLastStateTests, ObservationEdgeTests, …): a store whose actions are closures, so that each test says what
// its action does where it sends it.

struct EdgeRow: Identifiable, Equatable, Sendable {
  let id: Int
  var title = ""
}

struct EdgeChild: Equatable, Sendable {
  var count = 0
}

struct EdgeState: Sendable {
  var count = 0
  var flag = false
  var other = 0
  var items: [Int] = []
  var value = 0.0
  var child: EdgeChild? = nil
  var rows: IdentifiedArray<EdgeRow> = []
}

struct EdgeAction: Sendable {
  let apply: @Sendable (inout EdgeState) -> Void
  init(_ apply: @escaping @Sendable (inout EdgeState) -> Void) { self.apply = apply }
}

typealias EdgeStore = Store<EdgeState, EdgeAction>

func makeEdgeStore(_ state: EdgeState = EdgeState()) -> EdgeStore {
  Store(
    initialState: state,
    reducer: Reduce<EdgeState, EdgeAction> { state, action in
      action.apply(&state)
      return .none
    })
}

/// A slot for a value made after the closure that uses it (a token an observer cancels).
final class EdgeBox<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var _value: Value?
  init(_ value: Value? = nil) { _value = value }
  var value: Value? {
    get { lock.withLock { _value } }
    set { lock.withLock { _value = newValue } }
  }
  /// Takes the value out (so that it is released by the caller, outside the lock).
  func take() -> Value? {
    lock.withLock {
      defer { _value = nil }
      return _value
    }
  }
}
