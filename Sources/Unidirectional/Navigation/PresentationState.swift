import Synchronization

/// Source of presentation identities: unique in the process, so a presentation is never taken
/// for another one, whatever state it is copied into.
private let presentationIDs = Atomic<UInt64>(0)

/// The state of an optional child feature that is presented (a modal mode, an editor, a
/// confirmation), with an identity per presentation. Drive it with
/// ``Reducer/ifLet(_:action:destination:fileID:line:)``.
///
/// ```swift
/// struct State: Equatable, Sendable {
///   @PresentationState var editor: Editor.State?
/// }
/// …
/// case .editTapped:
///   state.editor = Editor.State(text: state.text)   // presents
/// ```
///
/// Each presentation has its own identity, assigned when a value is presented: when the state
/// goes from `nil` to a value, or is replaced by a value whose `Identifiable` id differs (for an
/// `Identifiable` child state). The effects of a presentation are cancelled when its identity
/// ends, so a child presented again never receives the actions of the effects of the child
/// before it. Editing the presented value in place, or replacing it with a value that is not
/// `Identifiable` or has the same id, keeps the presentation. A presented child whose own reducer
/// changes its `Identifiable` id (or its enum case) is a new child too, as in TCA: its running
/// effects end at the end of that action.
///
/// An enum child state (a destination with several cases) that changes case is a new
/// presentation too, as in TCA: the destination's case is read from the enum's runtime records
/// (as ``CasePath`` reads it), not by reflection.
///
/// Two values are equal when their child states are: the identity is bookkeeping, as it is for
/// TCA's `PresentationState`, so a test's expected state compares equal to the store's.
@propertyWrapper
public struct PresentationState<State> {
  /// The presented child state.
  @usableFromInline var value: State?

  /// The identity of the current presentation; `nil` exactly when `value` is.
  @usableFromInline var presentationID: UInt64?

  /// Creates a presentation of `wrappedValue`, or none for `nil`.
  ///
  /// - Parameter wrappedValue: The presented child state, or `nil`.
  public init(wrappedValue: State?) {
    self.value = wrappedValue
    self.presentationID = wrappedValue == nil ? nil : Self.nextID()
  }

  /// The presented child state, or `nil` when nothing is presented.
  ///
  /// Setting a value where there was none, a value of another enum case, or a value with
  /// another `Identifiable` id, starts a new presentation; setting `nil` ends it.
  public var wrappedValue: State? {
    get { value }
    set {
      let isNew: Bool
      switch (value, newValue) {
      case (_, nil): isNew = false
      case (nil, .some): isNew = true
      case (.some(let old), .some(let new)): isNew = !Self.sameIdentity(old, new)
      }
      value = newValue
      if newValue == nil {
        presentationID = nil
      } else if isNew {
        presentationID = Self.nextID()
      }
    }
  }

  /// The presentation itself, for ``Reducer/ifLet(_:action:destination:fileID:line:)``:
  /// `\.$editor`.
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }

  @usableFromInline
  static func nextID() -> UInt64 {
    presentationIDs.add(1, ordering: .relaxed).newValue
  }

  /// What tells one presented child from another beyond the presentation: its enum case and its
  /// `Identifiable` id, when it has them.
  struct ChildIdentity: Hashable, Sendable {
    let caseTag: Int?
    let id: EffectID?
  }

  /// The identity of `child` (a tag read and a conformance look-up).
  static func identity(of child: State) -> ChildIdentity {
    ChildIdentity(caseTag: EnumLayout.caseTag(of: child), id: EffectID.identity(of: child))
  }

  /// Whether two child states are one presentation: always, unless they are cases of an enum
  /// that differ, or both are `Identifiable` with different ids. (A tag read and a conformance
  /// lookup, only when the parent replaces the child state.)
  private static func sameIdentity(_ old: State, _ new: State) -> Bool {
    if let oldCase = EnumLayout.caseTag(of: old), oldCase != EnumLayout.caseTag(of: new) {
      return false
    }
    guard let old = old as? any Identifiable, let new = new as? any Identifiable else {
      return true
    }
    return hasSameID(old, new)
  }

  private static func hasSameID<Value: Identifiable>(_ old: Value, _ new: any Identifiable)
    -> Bool
  {
    guard let new = new as? Value else { return false }
    return old.id == new.id
  }
}

extension PresentationState: Equatable where State: Equatable {
  /// Whether the presented child states are equal (the presentation identities are not
  /// compared).
  ///
  /// - Parameters:
  ///   - lhs: A presentation.
  ///   - rhs: Another presentation.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.value == rhs.value
  }
}

extension PresentationState: Hashable where State: Hashable {
  /// Hashes the presented child state.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(value)
  }
}

extension PresentationState: Sendable where State: Sendable {}

extension PresentationState: CustomReflectable {
  /// Shows the presented child state alone, so that test failures and `printChanges` show no
  /// bookkeeping.
  public var customMirror: Mirror {
    Mirror(reflecting: value as Any)
  }
}
