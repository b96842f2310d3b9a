/// The store of a reducer's feature: `StoreOf<Counter>` is `Store<Counter.State, Counter.Action>`,
/// as in TCA.
///
/// ```swift
/// let store: StoreOf<Counter> = Store(initialState: Counter.State()) { Counter() }
/// ```
public typealias StoreOf<R: Reducer> = Store<R.State, R.Action>
where R.State: Sendable, R.Action: Sendable
