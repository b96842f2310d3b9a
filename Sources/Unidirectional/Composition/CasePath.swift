/// How a child value is embedded in, and extracted from, one case of an enum: the action (or
/// state) routing of a parent feature, without macros and without `Mirror`.
///
/// Make one from the case's constructor alone, where the composition asks for it:
///
/// ```swift
/// enum Action {
///   case login(Login.Action)
///   case game(Game.Action)
///   case reset
/// }
///
/// Scope(state: \.login, action: .case(Action.login)) { Login() }
/// ```
///
/// or name it once per case, in an extension, so that call sites read `action: .login`:
///
/// ```swift
/// extension CasePath<AppAction, Login.Action> {
///   static var login: Self { .case(AppAction.login) }
/// }
/// ```
///
/// A case path made from a constructor learns how to take the payload out from what the Swift
/// runtime records about the enum (its cases' tags, payload types and `indirect` flags; see
/// ``init(_:)`` for the limits): `extract` reads the value's tag, and the payload only if that
/// case's payload is of type `Value`. It costs a few nanoseconds more than a hand-written
/// pattern match, whose form ``init(_:extract:)`` remains for anything that is not a plain case.
public struct CasePath<Root, Value>: Sendable {
  /// Wraps a child value in the case.
  public let embed: @Sendable (Value) -> Root

  // Two optionals rather than a nested enum: in unspecialized generic code, switching over an
  // enum nested in this generic type costs a metadata look-up on every `extract`.
  /// The hand-written pattern match, if this case path has one.
  @usableFromInline let extractClosure: (@Sendable (Root) -> Value?)?
  /// The enum's runtime layout, for a case path made from a constructor alone.
  // Safe to share: the layout is immutable and never freed (see `EnumLayout.shared`).
  @usableFromInline nonisolated(unsafe) let layout: UnsafePointer<EnumLayout>?

  /// Creates a case path from the case's constructor and a pattern match.
  ///
  /// - Parameters:
  ///   - embed: The case's constructor, for example `AppAction.login`.
  ///   - extract: `{ if case .login(let value) = $0 { value } else { nil } }`.
  public init(
    _ embed: @escaping @Sendable (Value) -> Root,
    extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.embed = embed
    self.extractClosure = extract
    self.layout = nil
  }

  /// Creates a case path from the case's constructor alone: `CasePath(AppAction.login)`.
  ///
  /// `Root` must be an enum, and `embed` the constructor of one of its cases whose payload is a
  /// `Value` (a case with several associated values has a tuple of them as its payload:
  /// `CasePath<Action, (Int, String)>(Action.pair)`). Any enum layout works: cases with and
  /// without payloads, `indirect` cases and enums, generic enums, enums nested in payloads. The
  /// one exception is a payload that is a function or a metatype (or a tuple or optional of
  /// one), which a case stores differently from generic code: such cases are never matched, so
  /// route them with ``init(_:extract:)``.
  ///
  /// `extract(root)` returns the payload when `root`'s case has a payload of type `Value` and
  /// `embed` of that payload makes a value of the same case; `embed` is called to check that,
  /// so it must be a constructor (or at least free of side effects). A closure that transforms
  /// its argument (`{ .login(LoginAction($0)) }`, `{ .remove(id: $0 + 1) }`) is not a case
  /// path: use ``init(_:extract:)``. It cannot be told from a constructor when it is created
  /// (there is no payload to try it on yet), so in debug builds a matching `extract` checks it:
  /// when `Root` is `Equatable` and `embed(extract(root))` is not `root`, the program stops with
  /// a message naming the case path and the values. Release builds do not check, nor do case
  /// paths made with ``init(_:extract:)``, nor roots that are not `Equatable`.
  ///
  /// - Parameter embed: The case's constructor, for example `AppAction.login`.
  /// - Precondition: `Root` is an enum with a case whose payload is a `Value`, compiled with
  ///   reflection metadata (the default; `-disable-reflection-metadata` removes it).
  ///
  /// Complexity: the first case path of each pair of types reads the enum's runtime records;
  /// after that, creating one is a cache look-up and `extract` O(1).
  @inlinable @inline(__always)
  public init(_ embed: @escaping @Sendable (Value) -> Root) {
    guard let layout = EnumLayout.shared(Root.self, withPayload: Value.self) else {
      Self.noSuchCase()
    }
    self.embed = embed
    self.extractClosure = nil
    self.layout = layout
  }

  @usableFromInline
  static func noSuchCase() -> Never {
    preconditionFailure(
      """
      Unidirectional: CasePath<\(Root.self), \(Value.self)>(embed) needs an enum with a case \
      whose payload is a \(Value.self), built with reflection metadata. Pass the case's \
      constructor, or use CasePath(embed, extract:) with a pattern match.
      """)
  }

  /// A case path from the case's constructor: `.case(AppAction.login)`, where a `CasePath` is
  /// expected. The same as ``init(_:)``.
  ///
  /// - Parameter embed: The case's constructor, for example `AppAction.login`.
  @inlinable @inline(__always)
  public static func `case`(_ embed: @escaping @Sendable (Value) -> Root) -> Self {
    Self(embed)
  }

  /// Returns the child value if the root is this case, `nil` otherwise.
  ///
  /// - Parameter root: The value to match.
  /// - Complexity: O(1).
  @inlinable @inline(__always)
  public func extract(_ root: Root) -> Value? {
    guard let layout else { return extractClosure?(root) }
    // Inlined in the caller: a reducer that is not this case's (most of a composition's, for
    // any one action) pays for the tag test alone, without a call.
    // Read before the call of the tag function: after it, the compiler would read it from a
    // copy of the whole layout, made before the call.
    let tagsWithPayload = layout.pointee.tagsWithPayload
    let tag = layout.pointee.tag(of: root)
    if tag < 64 {
      guard tagsWithPayload & (1 &<< UInt64(truncatingIfNeeded: tag)) != 0 else { return nil }
    } else {
      guard layout.pointee.payload(pastTag64: tag, isLaidOutAs: Value.self) else { return nil }
    }
    return payload(of: root, tag: tag, layout: layout)
  }

  /// The payload of `root`, whose case has tag `tag`, if `embed` makes that case.
  ///
  /// - Precondition: The case with tag `tag` has a payload laid out as a `Value`.
  @inlinable @inline(never)
  func payload(of root: Root, tag: Int, layout: UnsafePointer<EnumLayout>) -> Value? {
    let value = layout.pointee.payload(of: root, tag: tag, as: Value.self)
    // Another case may have a payload of the same type: the embedded value tells.
    let embedded = embed(value)
    guard layout.pointee.tag(of: embedded) == tag else { return nil }
    // Debug builds only: an `embed` that changes its argument makes the right case, but is not
    // a case path. Stops with a message when `Root` is `Equatable` and shows it.
    assert(Self.checkRoundTrip(root, value, embedded))
    return value
  }
}
