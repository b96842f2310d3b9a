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
/// {"type":"redirect","game":"g1-p3-0","address":"127.0.0.1:7879"}
/// {"type":"leaders","leaders":[{"name":"Ann","wins":3},{"name":"Bob","wins":1}]}
/// ```
///
/// (The `state` frame is on one line; it is wrapped here. A finished game's `state` frame, with
/// `status` other than `playing`, has no `turn`.)
public enum ServerFrame: Equatable, Sendable {
  /// Where the client is now: pushed whenever its session's phase changes.
  case session(name: String?, phase: Session.Phase)
  /// A game as its players see it: pushed whenever it changes. A move is acknowledged by the
  /// first `state` frame whose `last` move has the client's `seq`.
  case state(GameView)
  /// The client's frame was refused; nothing changed.
  case error(code: String, message: String, seq: Int?)
  /// The client's seat in a game, and the token that takes it again after a server restart
  /// (durable servers only; sent once the game's start is on disk).
  case seat(game: String, player: Player, token: String)
  /// The answer to `ping`.
  case pong
  /// The server closes the connection next, for `reason`.
  case bye(CloseReason)
  /// A cluster's shard does not serve `game`: its partition's owner, at `address`
  /// (`HOST:PORT`), does. The client connects there and sends its `rejoin` again; this
  /// connection stays open.
  case redirect(game: String, address: String)
  /// The answer to `leaders`: the players with the most wins, most first (see
  /// ``Leaderboard/top(_:)``), at most ``Leaderboard/shownInFrames``.
  case leaders([Leaderboard.Entry])

  /// The frame as one line of JSON, newline included.
  public var line: String { String(decoding: bytes, as: UTF8.self) }

  /// The frame as the UTF-8 bytes of one line of JSON, newline included.
  ///
  /// Built byte by byte: string interpolation cost more than the rest of a move.
  public var bytes: [UInt8] {
    var out = FrameWriter()
    out.raw("{\"type\":")
    switch self {
    case .session(let name, let phase):
      out.raw("\"session\",\"phase\":")
      switch phase {
      case .connected: out.raw("\"connected\"")
      case .lobby: out.raw("\"lobby\"")
      case .queued: out.raw("\"queued\"")
      case .playing: out.raw("\"playing\"")
      case .closed: out.raw("\"closed\"")
      }
      if let name { out.field("name", name) }
      if case .playing(let game, let player, let opponent) = phase {
        out.field("game", game)
        out.field("you", player.rawValue)
        out.field("opponent", opponent)
      }
      if case .closed(let reason) = phase { out.field("reason", reason.rawValue) }
    case .state(let view):
      out.raw("\"state\"")
      out.field("game", view.game)
      out.raw(",\"board\":\"")
      for cell in view.board.cells {
        out.append(cell == .x ? 0x58 : cell == .o ? 0x4F : 0x2E)
      }
      out.raw("\"")
      // Whose turn it is only while the game is on: a finished game has no turn.
      if view.outcome == nil { out.field("turn", word: view.turn.word) }
      out.field("moves", view.moveCount)
      if let last = view.lastMove {
        out.raw(",\"last\":{\"player\":")
        out.raw(last.player == .x ? "\"X\"" : "\"O\"")
        out.field("cell", last.cell)
        out.field("seq", last.seq)
        out.raw("}")
      }
      switch view.outcome {
      case nil: out.field("status", word: "playing")
      case .won(let player)?:
        out.field("status", word: "won")
        out.field("winner", word: player.word)
      case .tie?: out.field("status", word: "tie")
      case .forfeit(let loser, let reason)?:
        out.field("status", word: "forfeit")
        out.field("winner", word: loser.other.word)
        out.field("reason", reason.rawValue)
      }
    case .error(let code, let message, let seq):
      out.raw("\"error\"")
      out.field("code", code)
      out.field("message", message)
      if let seq { out.field("seq", seq) }
    case .seat(let game, let player, let token):
      out.raw("\"seat\"")
      out.field("game", game)
      out.field("you", player.rawValue)
      out.field("token", token)
    case .pong:
      out.raw("\"pong\"")
    case .bye(let reason):
      out.raw("\"bye\"")
      out.field("reason", reason.rawValue)
    case .redirect(let game, let address):
      out.raw("\"redirect\"")
      out.field("game", game)
      out.field("address", address)
    case .leaders(let entries):
      out.raw("\"leaders\",\"leaders\":[")
      for (index, entry) in entries.enumerated() {
        out.raw(index == 0 ? "{\"name\":" : ",{\"name\":")
        out.string(entry.name)
        out.field("wins", entry.wins)
        out.raw("}")
      }
      out.raw("]")
    }
    out.raw("}\n")
    return out.finish()
  }

  /// `text` as a JSON string literal.
  static func quoted(_ text: String) -> String {
    // Most text needs no escape: return it quoted as it is.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
      return "\"" + text + "\""
    }
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

extension Player {
  /// The player's letter, as frames spell it.
  fileprivate var word: StaticString { self == .x ? "X" : "O" }
}
