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
