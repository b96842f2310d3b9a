import CaseStudySupport
import Unidirectional

/// The new-game screen: the players' names, then a game; or log out.
public struct NewGame: Reducer {
  /// The new-game screen's state.
  public struct State: Equatable, Sendable {
    /// X's name as typed.
    public var xName = ""
    /// O's name as typed.
    public var oName = ""
    /// The game being played, if any.
    public var game: Game.State?

    /// Creates the screen.
    public init(xName: String = "", oName: String = "", game: Game.State? = nil) {
      self.xName = xName
      self.oName = oName
      self.game = game
    }

    /// Whether a game can start: both names not blank.
    public var canStart: Bool { !xName.trimmed.isEmpty && !oName.trimmed.isEmpty }
  }

  /// What the user can do.
  public enum Action: Codable, Equatable, Sendable {
    /// The user typed X's name.
    case xNameChanged(String)
    /// The user typed O's name.
    case oNameChanged(String)
    /// The user starts a game; ignored unless both names are set.
    case letsPlayButtonTapped
    /// The user logs out (the app returns to the login screen).
    case logoutButtonTapped
    /// An action of the game.
    case game(Game.Action)
  }

  /// Creates the feature.
  public init() {}

  /// Handles the screen's actions, and runs the game while there is one.
  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .xNameChanged(let name):
        state.xName = name
        return .none
      case .oNameChanged(let name):
        state.oName = name
        return .none
      case .letsPlayButtonTapped:
        guard state.canStart, state.game == nil else { return .none }
        state.game = Game.State(
          xName: String(state.xName.trimmed), oName: String(state.oName.trimmed))
        return .none
      case .game(.quitButtonTapped):
        state.game = nil
        return .none
      case .logoutButtonTapped, .game:
        return .none
      }
    }
    .ifLet(\.game, action: .game) { Game() }
  }
}

extension CasePath where Root == NewGame.Action {
  /// Routes game actions.
  public static var game: CasePath<NewGame.Action, Game.Action> {
    .case(NewGame.Action.game)
  }
}
