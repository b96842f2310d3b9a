/// A payload that action logs write redacted: a password, a one-time code, a token.
///
/// Wrap the secret parts of your actions, at any depth:
///
/// ```swift
/// enum Login: Codable, Sendable {
///   case emailChanged(String)
///   case passwordChanged(Secret<String>)
/// }
/// store.send(.login(.passwordChanged(Secret(text))))
///
/// // In the reducer:
/// case .login(.passwordChanged(let password)):
///   state.password = password.value
/// ```
///
/// An ``ActionLogRecorder`` writes the value as `"<redacted>"` and marks the entry as redacted,
/// so the secret never reaches the file; ``ActionLog`` stops before such an entry, with an
/// error naming its line and where the secret was (``ActionLogError/Reason/redacted(_:)``).
/// Every other encoding (sending the action over a network, say) writes the value itself.
///
/// The secret never prints either: `description`, `debugDescription` and the value's mirror
/// show `<redacted>`, so ``Reducer/printChanges(to:)``, store issues and test failure messages
/// do not reveal it. Equality and hashing compare the values.
public struct Secret<Value> {
  /// The secret value.
  public var value: Value

  /// Wraps `value`.
  ///
  /// - Parameter value: The secret.
  public init(_ value: Value) {
    self.value = value
  }

  /// What logs and descriptions show instead of the value.
  static var placeholder: String { "<redacted>" }
}

extension Secret: Sendable where Value: Sendable {}
extension Secret: RedactedValue {}
extension Secret: Equatable where Value: Equatable {}
extension Secret: Hashable where Value: Hashable {}

extension Secret: Encodable where Value: Encodable {
  /// Writes the value, or `"<redacted>"` when an action log records it.
  ///
  /// - Parameter encoder: The encoder to write to.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let redaction = encoder.userInfo[ActionLogRedaction.key] as? ActionLogRedaction {
      redaction.record()
      try container.encode(Self.placeholder)
    } else {
      try container.encode(value)
    }
  }
}

extension Secret: Decodable where Value: Decodable {
  /// Reads the value, written as the value alone.
  ///
  /// - Parameter decoder: The decoder to read from.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(Value.self))
  }
}

extension Secret: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// `<redacted>`: never the value.
  public var description: String { Self.placeholder }

  /// `<redacted>`: never the value.
  public var debugDescription: String { Self.placeholder }

  /// A mirror without children, so that dumps print `<redacted>`.
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}
