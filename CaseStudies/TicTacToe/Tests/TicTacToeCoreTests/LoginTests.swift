import Testing
import TicTacToeCore
import Unidirectional
import UnidirectionalTesting

/// The login and two-factor screens, with the live authentication client on a test clock.
@Suite struct LoginTests {
  let clock = TestClock()

  /// Types an email and password; each is acknowledged (the "login form" concern prints what
  /// is still missing), and the form becomes valid with the password.
  func fillIn(
    _ store: TestStore<TicTacToe.State, TicTacToe.Action>, email: String, password: String
  ) async {
    await store.send(.login(.emailChanged(email)), fires: ["login form"]) {
      $0 = .login(Login.State(email: email))
    }
    await store.send(.login(.passwordChanged(Secret(password))), fires: ["login form"]) {
      $0 = .login(Login.State(email: email, password: password))
    }
  }

  @Test func loginWithoutTwoFactor() async {
    let store = makeStore(clock: clock)
    await fillIn(store, email: "blob@example.com", password: "password")
    await store.send(.login(.loginButtonTapped), fires: ["login request"]) {
      $0 = .login(
        Login.State(email: "blob@example.com", password: "password", isLoginRequestInFlight: true))
    }
    await clock.advance(by: AuthenticationClient.liveDelay)
    await store.receive(
      .login(.loginSucceeded(AuthenticationResponse(token: "session", twoFactorRequired: false))),
      fires: ["screen", "login form", "login request", "new game form"]
    ) {
      $0 = .newGame(NewGame.State())
    }
    await store.finish()
  }

  @Test func loginWithTwoFactor() async {
    let store = makeStore(clock: clock)
    await fillIn(store, email: "blob2fa@example.com", password: "password")
    await store.send(.login(.loginButtonTapped), fires: ["login request"]) {
      $0 = .login(
        Login.State(
          email: "blob2fa@example.com", password: "password", isLoginRequestInFlight: true))
    }
    await clock.advance(by: AuthenticationClient.liveDelay)
    let pending = AuthenticationResponse(token: "pending-2fa", twoFactorRequired: true)
    await store.receive(
      .login(.loginSucceeded(pending)),
      fires: ["screen", "login request", "two-factor form", "two-factor request"]
    ) {
      $0 = .login(
        Login.State(
          email: "blob2fa@example.com", password: "password",
          twoFactor: TwoFactor.State(token: "pending-2fa")))
    }
    // The code is acknowledged, and 'submit' named: it is not checked until then.
    await store.send(.login(.twoFactor(.codeChanged(Secret("1234")))), fires: ["two-factor form"]) {
      $0 = .login(
        Login.State(
          email: "blob2fa@example.com", password: "password",
          twoFactor: TwoFactor.State(token: "pending-2fa", code: "1234")))
    }
    await store.send(.login(.twoFactor(.submitButtonTapped)), fires: ["two-factor request"]) {
      $0 = .login(
        Login.State(
          email: "blob2fa@example.com", password: "password",
          twoFactor: TwoFactor.State(token: "pending-2fa", code: "1234", isRequestInFlight: true)))
    }
    await clock.advance(by: AuthenticationClient.liveDelay)
    await store.receive(
      .login(
        .twoFactor(
          .twoFactorSucceeded(AuthenticationResponse(token: "session", twoFactorRequired: false)))),
      fires: [
        "screen", "login form", "login request", "two-factor form", "two-factor request",
        "new game form",
      ]
    ) {
      $0 = .newGame(NewGame.State())
    }
    await store.finish()
  }

  @Test func aWrongTwoFactorCodeIsShownAndCanBeRetried() async {
    let twoFactor = TwoFactor.State(token: "pending-2fa", code: "0000")
    let store = makeStore(.login(Login.State(twoFactor: twoFactor)), clock: clock)
    await store.send(.login(.twoFactor(.submitButtonTapped)), fires: ["two-factor request"]) {
      $0 = .login(
        Login.State(
          twoFactor: TwoFactor.State(token: "pending-2fa", code: "0000", isRequestInFlight: true)))
    }
    await clock.advance(by: AuthenticationClient.liveDelay)
    await store.receive(
      .login(.twoFactor(.twoFactorFailed("Wrong two-factor code."))),
      fires: ["two-factor request", "two-factor error"]
    ) {
      $0 = .login(
        Login.State(
          twoFactor: TwoFactor.State(
            token: "pending-2fa", code: "0000", error: "Wrong two-factor code.")))
    }
    // A new attempt clears the error.
    await store.send(
      .login(.twoFactor(.submitButtonTapped)), fires: ["two-factor request", "two-factor error"]
    ) {
      $0 = .login(
        Login.State(
          twoFactor: TwoFactor.State(token: "pending-2fa", code: "0000", isRequestInFlight: true)))
    }
    await store.skipInFlightEffects()
  }

  @Test func dismissingTwoFactorWhileTheRequestIsInFlightCancelsIt() async {
    let twoFactor = TwoFactor.State(token: "pending-2fa", code: "1234")
    let store = makeStore(.login(Login.State(twoFactor: twoFactor)), clock: clock)
    await store.send(.login(.twoFactor(.submitButtonTapped)), fires: ["two-factor request"]) {
      $0 = .login(
        Login.State(
          twoFactor: TwoFactor.State(token: "pending-2fa", code: "1234", isRequestInFlight: true)))
    }
    await store.send(
      .login(.twoFactorDismissed), fires: ["screen", "two-factor form", "two-factor request"]
    ) {
      $0 = .login(Login.State())
    }
    // The request was cancelled: `finish` would fail on a running effect, and time passing
    // delivers nothing.
    await store.finish()
    await clock.advance(by: .seconds(10))
  }

  @Test func aWrongPasswordIsShown() async {
    let store = makeStore(clock: clock)
    await fillIn(store, email: "blob@example.com", password: "hunter2")
    await store.send(.login(.loginButtonTapped), fires: ["login request"]) {
      $0 = .login(
        Login.State(email: "blob@example.com", password: "hunter2", isLoginRequestInFlight: true))
    }
    await clock.advance(by: AuthenticationClient.liveDelay)
    await store.receive(
      .login(.loginFailed("Wrong email or password.")), fires: ["login request", "login error"]
    ) {
      $0 = .login(
        Login.State(
          email: "blob@example.com", password: "hunter2", error: "Wrong email or password."))
    }
  }

  @Test func anEmailWithoutAnAtIsRefused() async {
    let client = AuthenticationClient.liveValue
    await #expect(throws: AuthenticationError("That email address is not valid: it has no '@'.")) {
      try await withDependencies {
        $0.continuousClock = ImmediateClock()
      } operation: {
        try await client.login("blob", "password")
      }
    }
  }

  @Test func inputIsIgnoredWhileLoggingIn() async {
    let inFlight = Login.State(email: "a@b.c", password: "password", isLoginRequestInFlight: true)
    let store = makeStore(.login(inFlight), clock: clock)
    // No state change and no observer: the reducer refuses input during the request.
    await store.send(.login(.emailChanged("other@b.c")))
    await store.send(.login(.passwordChanged(Secret("other"))))
    await store.send(.login(.loginButtonTapped))
    // The program says why.
    #expect(
      TicTacToeCommand("email other@b.c", state: store.state)
        == .invalid(message: "please wait: logging in…"))
  }

  @Test func blankCredentialsCannotLogIn() async {
    let store = makeStore(clock: clock)
    // The form's observer runs, and prints nothing for blank fields.
    await store.send(.login(.emailChanged("   ")), fires: ["login form"]) {
      $0 = .login(Login.State(email: "   "))
    }
    await store.send(.login(.passwordChanged(Secret("\t"))), fires: ["login form"]) {
      $0 = .login(Login.State(email: "   ", password: "\t"))
    }
    await store.send(.login(.loginButtonTapped))  // Ignored: no request, no change.
    #expect(
      TicTacToeCommand("login", state: store.state)
        == .invalid(message: "set an email and a password first ('email …', 'password …')"))
  }
}
