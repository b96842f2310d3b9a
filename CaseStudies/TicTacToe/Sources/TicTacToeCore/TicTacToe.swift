import Unidirectional

/// The whole TicTacToe program: logged out (the login screens) or logged in (new game and game).
public struct TicTacToe: Reducer {
  /// Which side of the login the user is on; one case at a time.
  public enum State: Equatable, Sendable {
    /// Logging in.
    case login(Login.State)
    /// Logged in: choosing players, or playing.
    case newGame(NewGame.State)

    /// The login screens' state, when logged out.
    public var login: Login.State? {
      if case .login(let state) = self { state } else { nil }
    }

    /// The new-game screen's state, when logged in.
    public var newGame: NewGame.State? {
      if case .newGame(let state) = self { state } else { nil }
    }

    /// The start: logged out, with an empty form.
    public init() {
      self = .login(Login.State())
    }
  }

  /// The actions of whichever screen is shown.
  public enum Action: Codable, Equatable, Sendable {
    /// An action of the login screens.
    case login(Login.Action)
    /// An action of the new-game screen or the game.
    case newGame(NewGame.Action)
  }

  /// Creates the feature.
  public init() {}

  /// Routes actions to the active side, and moves between them on login and logout; a side's
  /// effects end when the program leaves it (a login request in flight at logout, say).
  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .login(.loginSucceeded(let response)) where !response.twoFactorRequired,
        .login(.twoFactor(.twoFactorSucceeded(let response))) where !response.twoFactorRequired:
        state = .newGame(NewGame.State())
      case .newGame(.logoutButtonTapped):
        state = .login(Login.State())
      default:
        break
      }
      return .none
    }
    .ifCaseLet(.login, action: .login) { Login() }
    .ifCaseLet(.newGame, action: .newGame) { NewGame() }
  }
}

extension CasePath where Root == TicTacToe.State {
  /// The login side of the app's state.
  public static var login: CasePath<TicTacToe.State, Login.State> {
    .case(TicTacToe.State.login)
  }

  /// The logged-in side of the app's state.
  public static var newGame: CasePath<TicTacToe.State, NewGame.State> {
    .case(TicTacToe.State.newGame)
  }
}

extension CasePath where Root == TicTacToe.Action {
  /// Routes login actions.
  public static var login: CasePath<TicTacToe.Action, Login.Action> {
    .case(TicTacToe.Action.login)
  }

  /// Routes new-game and game actions.
  public static var newGame: CasePath<TicTacToe.Action, NewGame.Action> {
    .case(TicTacToe.Action.newGame)
  }
}
