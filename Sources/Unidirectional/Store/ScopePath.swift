/// Where a child state lives in its parent state: always there, or there while non-`nil`.
@usableFromInline
enum ScopePath<Parent, Child>: @unchecked Sendable {
  // Safe: key paths are immutable; their captured subscript arguments are fixed at creation.
  case required(KeyPath<Parent, Child>)
  case optional(KeyPath<Parent, Child?>)

  /// The child state in `store` now, or `nil` if it is absent.
  func current<Action>(in store: Store<Parent, Action>) -> Child? {
    switch self {
    case .required(let keyPath): store.peek(keyPath)
    case .optional(let keyPath): store.peek(keyPath)
    }
  }

  /// Where the child state (or the optional holding it) is stored in the parent state, if the
  /// path is a chain of stored properties.
  var offset: Int? {
    switch self {
    case .required(let keyPath): MemoryLayout<Parent>.offset(of: keyPath)
    case .optional(let keyPath): MemoryLayout<Parent>.offset(of: keyPath)
    }
  }

  /// This path followed by `next`.
  func appending<Next>(_ next: ScopePath<Child, Next>) -> ScopePath<Parent, Next> {
    switch (self, next) {
    case (.required(let first), .required(let second)):
      .required(first.appending(path: second))
    case (.required(let first), .optional(let second)):
      .optional(first.appending(path: second))
    case (.optional(let first), .required(let second)):
      .optional(first.appending(path: \Child?.[unwrapping: second]))
    case (.optional(let first), .optional(let second)):
      .optional(first.appending(path: \Child?.[flattening: second]))
    }
  }
}

extension Optional {
  /// The value at `keyPath` of the wrapped value, if any: lets key paths go through optionals.
  @usableFromInline
  subscript<Value>(unwrapping keyPath: KeyPath<Wrapped, Value>) -> Value? {
    map { $0[keyPath: keyPath] }
  }

  /// The optional value at `keyPath` of the wrapped value, if any.
  subscript<Value>(flattening keyPath: KeyPath<Wrapped, Value?>) -> Value? {
    flatMap { $0[keyPath: keyPath] }
  }
}
