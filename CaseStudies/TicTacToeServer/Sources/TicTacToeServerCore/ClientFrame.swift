import Foundation

/// A frame a client sends: one JSON object on one line, told apart by its `type`.
///
/// ```
/// {"type":"hello","name":"Ann"}
/// {"type":"join"}
/// {"type":"move","game":"g1","cell":4,"seq":1}
/// {"type":"leave"}
/// {"type":"ping"}
/// {"type":"quit"}
/// {"type":"rejoin","game":"g1","token":"5f0c…"}
/// {"type":"leaders"}
/// ```
public enum ClientFrame: Equatable, Sendable {
  /// Names the client; the first frame of a session.
  case hello(name: String)
  /// Queues for a game.
  case join
  /// Marks `cell` (0...8, row by row) in `game`; `seq` is echoed in the acknowledgement.
  case move(game: String, cell: Int, seq: Int)
  /// Leaves the queue, or forfeits the game being played.
  case leave
  /// Asks for a `pong`.
  case ping
  /// Closes the session.
  case quit
  /// Takes a seat again in a game that survived a server restart, with the token the `seat`
  /// frame gave (durable servers only).
  case rejoin(game: String, token: String)
  /// Asks for the leaderboard: the players with the most wins (a `leaders` frame), in any
  /// phase.
  case leaders

  /// The longest name accepted, in characters.
  public static let maximumNameLength = 32
  /// The longest name accepted, in bytes of UTF-8: a character can be a letter and any number
  /// of combining marks, and names are sent to every client that asks for `leaders`.
  public static let maximumNameBytes = 128

  /// The fields any frame may have; which ones a type needs is checked after decoding.
  /// The fields of a frame, before they are checked against its type.
  package struct Fields: Decodable, Equatable {
    package var type: String
    package var name: String?
    package var game: String?
    package var cell: Int?
    package var seq: Int?
    package var token: String? = nil
  }

  /// Decodes one frame, without its newline.
  ///
  /// - Parameter line: The frame's bytes.
  /// - Throws: ``FrameError`` saying what is wrong with it.
  /// - Returns: The frame.
  public static func decode(_ line: some Collection<UInt8>) throws(FrameError) -> ClientFrame {
    let fields: Fields
    if let simple = FlatJSON.fields(line) {
      fields = simple
    } else {
      fields = try decodeWithFoundation(line)
    }
    return try frame(from: fields)
  }

  /// Decodes with Foundation's `JSONDecoder`: everything the fast path leaves to it, with the
  /// errors clients are told. Numbers are checked first (see `ClientFrame+Numbers`): a frame
  /// that is one JSON object but holds a `cell` or `seq` outside the protocol's grammar is
  /// `bad-field`.
  package static func decodeWithFoundation(_ line: some Collection<UInt8>) throws(FrameError)
    -> Fields
  {
    let bytes = Array(line)
    if let field = badNumericField(in: bytes) {
      throw FrameError(
        .badField,
        "\"\(field)\" is a whole number from 0 to \(Int.max) in ASCII digits, "
          + "with no sign, fraction, exponent or leading zero")
    }
    do {
      return try JSONDecoder().decode(Fields.self, from: Data(bytes))
    } catch DecodingError.keyNotFound(let key, _) {
      throw FrameError(.missingField, "a frame needs a \"\(key.stringValue)\" field")
    } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
      let field = context.codingPath.first?.stringValue ?? "a field"
      throw FrameError(.badField, "\"\(field)\" has the wrong type")
    } catch {
      throw FrameError(.badJSON, "a frame is one JSON object on one line")
    }
  }

  /// The frame `fields` make, once they are checked against its type.
  package static func frame(from fields: Fields) throws(FrameError) -> ClientFrame {
    switch fields.type {
    case "hello":
      guard let name = fields.name else {
        throw FrameError(.missingField, "hello needs a \"name\"")
      }
      let trimmed = name.trimmingCharacters(in: .whitespaces)
      guard !trimmed.isEmpty, trimmed.utf8.count <= maximumNameBytes,
        trimmed.count <= maximumNameLength,
        trimmed.unicodeScalars.allSatisfy({ !$0.properties.isDefaultIgnorableCodePoint })
          && !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
      else {
        throw FrameError(
          .badName,
          "a name is 1 to \(maximumNameLength) printable characters, at most "
            + "\(maximumNameBytes) bytes in UTF-8")
      }
      return .hello(name: trimmed)
    case "join": return .join
    case "leave": return .leave
    case "ping": return .ping
    case "quit": return .quit
    case "leaders": return .leaders
    case "rejoin":
      guard let game = fields.game, let token = fields.token else {
        throw FrameError(.missingField, "rejoin needs \"game\" and \"token\"")
      }
      return .rejoin(game: game, token: token)
    case "move":
      guard let game = fields.game, let cell = fields.cell, let seq = fields.seq else {
        throw FrameError(.missingField, "move needs \"game\", \"cell\" and \"seq\"")
      }
      return .move(game: game, cell: cell, seq: seq)
    default:
      throw FrameError(
        .unknownType, "unknown frame type (hello, join, move, leave, ping, quit, rejoin, leaders)")
    }
  }
}
