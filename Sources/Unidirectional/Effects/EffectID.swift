/// A type-erased, sendable cancellation identifier.
///
/// `AnyHashable` is not `Sendable`, so identifiers are kept as `any Hashable & Sendable` and
/// compared through `AnyHashable` only when needed.
@usableFromInline
struct EffectID: Hashable, Sendable {
  let base: any Hashable & Sendable

  init(_ base: some Hashable & Sendable) {
    self.base = base
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    AnyHashable(base).hash(into: &hasher)
  }
}

extension EffectID {
  /// The `Identifiable` id of `value`, as an id, if `value` is `Identifiable`; `nil` otherwise.
  /// (A conformance look-up: for reducers that ask once or twice per action.)
  static func identity(of value: Any) -> EffectID? {
    guard let identifiable = value as? any Identifiable else { return nil }
    return identity(ofIdentifiable: identifiable)
  }

  private static func identity<Value: Identifiable>(ofIdentifiable value: Value) -> EffectID {
    EffectID(DynamicID(value: AnyHashable(value.id)))
  }
}

/// An `Identifiable` id found at run time, whose type's sendability cannot be asked then.
// Safe: the id is a copy read out of a store's state (whose type is `Sendable`), and is only
// hashed and compared, never mutated; an id type with shared mutable state would be the
// exception this cannot rule out.
private struct DynamicID: Hashable, @unchecked Sendable {
  let value: AnyHashable
}

/// A cancellation id under which a child feature's effects run (an `ifLet` child, a `forEach`
/// element): once the child is gone, its effects are cancelled, and an action one of them sent
/// that was still waiting to be reduced is dropped and reported, never given to a new child.
protocol ChildEffectsID: Hashable, Sendable {}

extension EffectID {
  /// Whether this id names a child feature's effects (a `ChildEffectsID`, scoped or not).
  var isChildEffects: Bool {
    if base is any ChildEffectsID { return true }
    return (base as? ScopedEffectID)?.id.isChildEffects ?? false
  }

  /// This id as used inside the navigation child `scope`.
  func scoped(to scope: EffectID) -> EffectID {
    EffectID(ScopedEffectID(scope: scope, id: self))
  }

  /// This id as used by effect code running inside the navigation children `scopes` (outermost
  /// first), the way their reducers' effects were scoped on their way up.
  func scoped(toAll scopes: [EffectID]) -> EffectID {
    scopes.reversed().reduce(self) { id, scope in id.scoped(to: scope) }
  }
}

/// A cancellation id a presented child or a stack element used, made its own: the child's
/// identity (`scope`) with the id it gave. Two stack elements, or a parent and its presented
/// child, that use equal ids never cancel each other's effects (as in TCA, where navigation
/// scopes ids the same way).
struct ScopedEffectID: Hashable, Sendable {
  let scope: EffectID
  let id: EffectID
}

/// The scopes of the navigation children whose effect code is running (outermost first), so
/// that `Task.cancel(id:)` and `withTaskCancellation(id:)` inside their effects scope ids as
/// their reducers' effects are scoped.
enum EffectIDScopes {
  @TaskLocal static var current: [EffectID] = []
}
