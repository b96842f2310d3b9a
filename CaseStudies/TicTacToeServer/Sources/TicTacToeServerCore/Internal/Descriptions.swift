import TicTacToeCore

extension Session.Phase {
  /// The phase in a word, for messages.
  var word: String {
    switch self {
    case .connected: "not named yet"
    case .lobby: "in the lobby"
    case .queued: "queued"
    case .playing(let game, _, _): "playing \(game)"
    case .closed: "closed"
    }
  }
}

extension MoveRefusal {
  /// What to tell `player`.
  func message(for player: Player) -> String {
    switch self {
    case .badCell: "a cell is 0 to 8, row by row"
    case .notYourTurn: "it is \(player.other.rawValue)'s turn"
    case .cellTaken: "that cell is taken"
    case .gameOver: "the game is over"
    }
  }
}

extension GameRoom.Outcome {
  /// The outcome for logs.
  var logDescription: String {
    switch self {
    case .won(let player): "\(player.rawValue) won"
    case .tie: "tie"
    case .forfeit(let loser, let reason): "\(loser.rawValue) forfeited (\(reason.rawValue))"
    }
  }
}
