/// A frame the server cannot act on: its code and message go back in an `error` frame.
public struct FrameError: Error, Equatable, Sendable {
  /// What kind of mistake it is; the `code` of the `error` frame.
  public enum Code: Equatable, Sendable {
    /// Not one JSON object.
    case badJSON
    /// A `type` the server does not know.
    case unknownType
    /// A field the frame's type needs is missing.
    case missingField
    /// A field has the wrong JSON type.
    case badField
    /// The name is empty, too long or not printable.
    case badName
    /// The frame needs a name: say hello first.
    case noName
    /// The frame does not fit where the client is (hello twice, join while playing, …).
    case wrongPhase
    /// No game has that id.
    case unknownGame
    /// The game exists, but the client does not play in it.
    case notAPlayer
    /// The token does not open a seat in that game, or the seat is taken.
    case badToken
    /// The game refused the move.
    case refused(MoveRefusal)

    /// The code as the `error` frame spells it: `bad-json`, `not-your-turn`, …
    public var name: String {
      switch self {
      case .badJSON: "bad-json"
      case .unknownType: "unknown-type"
      case .missingField: "missing-field"
      case .badField: "bad-field"
      case .badName: "bad-name"
      case .noName: "no-name"
      case .wrongPhase: "wrong-phase"
      case .unknownGame: "unknown-game"
      case .notAPlayer: "not-a-player"
      case .badToken: "bad-token"
      case .refused(let refusal): refusal.rawValue
      }
    }
  }

  /// The kind of mistake.
  public var code: Code
  /// What to tell the client.
  public var message: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: The kind of mistake.
  ///   - message: What to tell the client.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }
}
