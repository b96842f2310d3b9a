import TicTacToeCore

/// A frame the server sends: one JSON object on one line.
///
/// ```
/// {"type":"session","phase":"lobby","name":"Ann"}
/// {"type":"session","phase":"playing","name":"Ann","game":"g1","you":"X","opponent":"Bob"}
/// {"type":"state","game":"g1","board":"....X....","turn":"O","moves":1,
///  "last":{"player":"X","cell":4,"seq":1},"status":"playing"}
/// {"type":"error","code":"not-your-turn","message":"it is O's turn","seq":2}
/// {"type":"pong"}
/// {"type":"bye","reason":"idle"}
/// ```
///
/// (The `state` frame is on one line; it is wrapped here.)
public enum ServerFrame: Equatable, Sendable {
  /// Where the client is now: pushed whenever its session's phase changes.
  case session(name: String?, phase: Session.Phase)
  /// A game as its players see it: pushed whenever it changes. A move is acknowledged by the
  /// first `state` frame whose `last` move has the client's `seq`.
  case state(GameView)
  /// The client's frame was refused; nothing changed.
  case error(code: String, message: String, seq: Int?)
  /// The answer to `ping`.
  case pong
  /// The server closes the connection next, for `reason`.
  case bye(CloseReason)

  /// The frame as one line of JSON, newline included.
  public var line: String {
    var out = "{\"type\":"
    switch self {
    case .session(let name, let phase):
      out += "\"session\",\"phase\":"
      switch phase {
      case .connected: out += "\"connected\""
      case .lobby: out += "\"lobby\""
      case .queued: out += "\"queued\""
      case .playing: out += "\"playing\""
      case .closed: out += "\"closed\""
      }
      if let name { out += ",\"name\":" + Self.quoted(name) }
      if case .playing(let game, let player, let opponent) = phase {
        out += ",\"game\":" + Self.quoted(game) + ",\"you\":\"\(player.rawValue)\""
        out += ",\"opponent\":" + Self.quoted(opponent)
      }
      if case .closed(let reason) = phase { out += ",\"reason\":\"\(reason.rawValue)\"" }
    case .state(let view):
      out += "\"state\",\"game\":" + Self.quoted(view.game) + ",\"board\":\""
      for cell in view.board.cells { out += cell?.rawValue ?? "." }
      out += "\",\"turn\":\"\(view.turn.rawValue)\",\"moves\":\(view.moveCount)"
      if let last = view.lastMove {
        out += ",\"last\":{\"player\":\"\(last.player.rawValue)\",\"cell\":\(last.cell)"
        out += ",\"seq\":\(last.seq)}"
      }
      switch view.outcome {
      case nil: out += ",\"status\":\"playing\""
      case .won(let player)?: out += ",\"status\":\"won\",\"winner\":\"\(player.rawValue)\""
      case .tie?: out += ",\"status\":\"tie\""
      case .forfeit(let loser, let reason)?:
        out += ",\"status\":\"forfeit\",\"winner\":\"\(loser.other.rawValue)\""
        out += ",\"reason\":\"\(reason.rawValue)\""
      }
    case .error(let code, let message, let seq):
      out += "\"error\",\"code\":" + Self.quoted(code) + ",\"message\":" + Self.quoted(message)
      if let seq { out += ",\"seq\":\(seq)" }
    case .pong:
      out += "\"pong\""
    case .bye(let reason):
      out += "\"bye\",\"reason\":\"\(reason.rawValue)\""
    }
    out += "}\n"
    return out
  }

  /// `text` as a JSON string literal.
  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
