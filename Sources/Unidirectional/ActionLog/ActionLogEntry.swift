import Foundation

/// One line of an action log: an action a store reduced, its position and when it happened.
///
/// In the file, each entry is one JSON object on its own line:
///
/// ```json
/// {"action":{"increment":{}},"sequence":1,"timestamp":"2026-11-21T14:03:07.412Z"}
/// ```
///
/// In a ``DurableActionLog`` (format version 2, see ``ActionLogHeader``), the line starts with
/// the CRC-32C (Castagnoli) of the JSON object's bytes as 8 lowercase hexadecimal digits and
/// one space. The checksum covers exactly the bytes after that space and before the newline:
///
/// ```
/// 111f3309 {"action":{"increment":{}},"sequence":1,"timestamp":"2026-11-21T14:03:07.412Z"}
/// ```
///
/// An action holding a ``Secret`` is written with the secret replaced by `"<redacted>"` and a
/// `redacted` key listing where, so that readers know the action cannot be rebuilt:
///
/// ```json
/// {"action":{"login":{"_0":{"passwordChanged":{"_0":"<redacted>"}}}},"redacted":["login.passwordChanged"],"sequence":4,"timestamp":"2026-11-21T14:03:09.020Z"}
/// ```
public struct ActionLogEntry<Action> {
  /// The entry's position in the log: 1 for the first action the store reduced, then 2, 3, …
  public let sequence: Int

  /// When the store reduced the action (written in ISO 8601, UTC, with milliseconds).
  public let timestamp: Date

  /// The action.
  public let action: Action

  /// Creates an entry.
  ///
  /// - Parameters:
  ///   - sequence: The entry's position, from 1.
  ///   - timestamp: When the action was reduced.
  ///   - action: The action.
  public init(sequence: Int, timestamp: Date, action: Action) {
    self.sequence = sequence
    self.timestamp = timestamp
    self.action = action
  }
}

extension ActionLogEntry: Sendable where Action: Sendable {}
extension ActionLogEntry: Equatable where Action: Equatable {}

/// The keys and the timestamp format of an entry's JSON.
private enum EntryCoding {
  enum Keys: String, CodingKey {
    case sequence, timestamp, action, redacted
  }

  static var timestampStyle: Date.ISO8601FormatStyle {
    Date.ISO8601FormatStyle(includingFractionalSeconds: true)
  }
}

extension ActionLogEntry: Encodable where Action: Encodable {
  /// Writes the entry as an object with `sequence`, `timestamp` and `action`.
  ///
  /// - Parameter encoder: The encoder to write to.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: EntryCoding.Keys.self)
    try container.encode(sequence, forKey: .sequence)
    try container.encode(EntryCoding.timestampStyle.format(timestamp), forKey: .timestamp)
    try container.encode(action, forKey: .action)
    // The recorder's encoder carries a redaction collector: list the secrets just replaced.
    if let redaction = encoder.userInfo[ActionLogRedaction.key] as? ActionLogRedaction {
      if redaction.take() > 0 {
        try container.encode(ActionLogRedaction.paths(in: action), forKey: .redacted)
      }
    }
  }
}

extension ActionLogEntry: Decodable where Action: Decodable {
  /// Reads an entry written by ``encode(to:)``.
  ///
  /// - Throws: `DecodingError` if the line is not an entry, or if its action was recorded with
  ///   a ``Secret`` redacted: such an action cannot be rebuilt.
  ///
  /// - Parameter decoder: The decoder to read from.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: EntryCoding.Keys.self)
    if let paths = try container.decodeIfPresent([String].self, forKey: .redacted) {
      throw DecodingError.dataCorruptedError(
        forKey: .redacted, in: container,
        debugDescription: RedactedEntry(paths: paths).description)
    }
    let text = try container.decode(String.self, forKey: .timestamp)
    guard let timestamp = try? EntryCoding.timestampStyle.parse(text) else {
      throw DecodingError.dataCorruptedError(
        forKey: .timestamp, in: container,
        debugDescription: "'\(text)' is not an ISO 8601 timestamp")
    }
    self.init(
      sequence: try container.decode(Int.self, forKey: .sequence),
      timestamp: timestamp,
      action: try container.decode(Action.self, forKey: .action))
  }
}

/// Why an entry was not decoded: it holds redacted secrets, at these paths of its action.
struct RedactedEntry: CustomStringConvertible {
  let paths: [String]

  var description: String {
    "the action was recorded with secrets redacted (at \(paths.joined(separator: ", ")))"
  }
}
