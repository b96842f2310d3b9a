/// How a child value is embedded in, and extracted from, one case of an enum: the action (or
/// state) routing of a parent feature, without macros and without reflection.
///
/// Declare one line per case, in an extension constrained to the enum, so that `.login` reads
/// like a case at the call site:
///
/// ```swift
/// extension CasePath where Root == AppAction {
///   static var login: CasePath<AppAction, LoginAction> { .init(AppAction.login) { if case .login(let a) = $0 { a } else { nil } } }
/// }
///
/// Scope(state: \.login, action: .login) { Login() }
/// ```
///
/// `extract` is an ordinary `switch`-like pattern match: O(1), no `Mirror`.
public struct CasePath<Root, Value>: Sendable {
  /// Wraps a child value in the case.
  public let embed: @Sendable (Value) -> Root

  /// Returns the child value if the root is this case, `nil` otherwise.
  public let extract: @Sendable (Root) -> Value?

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
    self.extract = extract
  }
}
