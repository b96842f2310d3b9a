import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// The code of the article "Composition and navigation", compiled and run. Every ```swift block
// of the article appears here line for line (`DocumentationSnippetTests` checks it).

// MARK: The features of the article

struct Message: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var subject: String
    var isRead = false
  }
  enum Action: Equatable, Sendable {
    case markRead
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.isRead = true
    return .none
  }
}

struct Compose: Reducer {
  struct State: Equatable, Sendable {
    var subject = ""
  }
  enum Action: Equatable, Sendable {
    case subjectChanged(String)
    case sendTapped
    case sent
  }
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .subjectChanged(let subject):
      state.subject = subject
      return .none
    case .sendTapped:
      return .run { send in
        await send(.sent)
        await dismiss()  // the parent sets `compose` to nil, and these effects end
      }
    case .sent:
      return .none
    }
  }
}

struct Conversation: Reducer {
  struct State: Equatable, Sendable {
    var messageID: Int
    var replies = 0
  }
  enum Action: Equatable, Sendable {
    case replyTapped
    case backTapped
  }
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .replyTapped:
      state.replies += 1
      return .none
    case .backTapped:
      return .run { _ in await dismiss() }  // pops this conversation, and those above it
    }
  }
}

struct Inbox: Reducer {
  struct State: Equatable, Sendable {
    var messages: IdentifiedArray<Message.State> = []
    @PresentationState var compose: Compose.State?
    var path = StackState<Conversation.State>()
  }

  enum Action: Equatable, Sendable {
    case messages(IdentifiedActionOf<Message>)
    case compose(PresentationAction<Compose.Action>)
    case path(StackAction<Conversation.State, Conversation.Action>)
    case composeTapped
    case openTapped(messageID: Int)
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .composeTapped:
        state.compose = Compose.State()  // presents the editor
        return .none
      case .openTapped(let messageID):
        state.path.append(Conversation.State(messageID: messageID))  // pushes a conversation
        return .none
      case .compose(.presented(.sent)):
        state.messages.append(Message.State(id: state.messages.count, subject: "sent"))
        return .none
      case .messages, .compose, .path:
        return .none
      }
    }
    .forEach(\.messages, action: .messages) { Message() }
    .ifLet(\.$compose, action: .compose) { Compose() }
    .forEach(\.path, action: .path) { Conversation() }
  }
}

extension CasePath<Inbox.Action, IdentifiedActionOf<Message>> {
  static var messages: Self { .case(Inbox.Action.messages) }
}
extension CasePath<Inbox.Action, PresentationAction<Compose.Action>> {
  static var compose: Self { .case(Inbox.Action.compose) }
}
extension CasePath<Inbox.Action, StackAction<Conversation.State, Conversation.Action>> {
  static var path: Self { .case(Inbox.Action.path) }
}

struct SignIn: Reducer {
  struct State: Equatable, Sendable {
    var email = ""
  }
  enum Action: Equatable, Sendable {
    case submitTapped
    case succeeded
  }
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .submitTapped:
      return .run { send in
        try await clock.sleep(for: .seconds(1))
        await send(.succeeded)
      }
    case .succeeded:
      return .none
    }
  }
}

struct Session: Reducer {
  enum State: Equatable, Sendable {
    case signedOut(SignIn.State)
    case signedIn(Inbox.State)
  }
  enum Action: Equatable, Sendable {
    case signIn(SignIn.Action)
    case inbox(Inbox.Action)
    case signOutTapped
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .signIn(.succeeded):
        state = .signedIn(Inbox.State())
      case .signOutTapped:
        state = .signedOut(SignIn.State())
      case .signIn, .inbox:
        break
      }
      return .none
    }
    .ifCaseLet(.case(State.signedOut), action: .case(Action.signIn)) { SignIn() }
    .ifCaseLet(.case(State.signedIn), action: .case(Action.inbox)) { Inbox() }
  }
}

struct UnreadCount: Reducer {
  struct State: Equatable, Sendable {
    var messages: IdentifiedArray<Message.State> = []
    var unread = 0
    var unreadMessages: Int { messages.filter { !$0.isRead }.count }
  }
  enum Action: Equatable, Sendable {
    case messages(IdentifiedActionOf<Message>)
    case refreshTapped
    case refreshed
  }
  enum CancelID { case refresh }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .refreshTapped:
        return .run { send in
          await withTaskCancellation(id: CancelID.refresh, cancelInFlight: true) {
            await send(.refreshed)
          }
        }
      case .messages, .refreshed:
        return .none
      }
    }
    .forEach(\.messages, action: .case(Action.messages)) { Message() }
    .onChange(of: \.unreadMessages) { _, unread in
      Reduce { state, _ in
        state.unread = unread
        return .none
      }
    }
  }
}

// MARK: The article's examples, run

@Suite struct CompositionArticleTests {
  @Test func routing() {
    let compose: CasePath<Inbox.Action, PresentationAction<Compose.Action>> = .compose
    #expect(compose.extract(.compose(.dismiss)) == .dismiss)
    #expect(compose.extract(.composeTapped) == nil)
    #expect(compose.embed(.presented(.sendTapped)) == .compose(.presented(.sendTapped)))
  }

  @Test func rowsPresentationAndStack() async {
    let store = Store(initialState: Inbox.State(messages: [Message.State(id: 0, subject: "Hi")])) {
      Inbox()
    }
    store.send(.messages(.element(id: 0, action: .markRead)))
    #expect(store.messages[id: 0]?.isRead == true)

    store.send(.composeTapped)
    #expect(store.compose == Compose.State())
    await store.send(.compose(.presented(.sendTapped))).finish()
    #expect(store.compose == nil)
    #expect(store.messages.count == 2)

    store.send(.openTapped(messageID: 0))
    store.send(.openTapped(messageID: 1))
    let first = store.path.ids[0]
    await store.send(.path(.element(id: first, action: .backTapped))).finish()
    #expect(store.path.isEmpty)
  }

  @Test func aDependencyForOneChild() async {
    struct Child: Reducer {
      static let clocks = Log<String>()
      @Dependency(\.continuousClock) var clock
      func reduce(into state: inout Int, action: Void) -> Effect<Void> {
        Self.clocks.append("reducer: \(type(of: clock))")
        return .run { _ in
          @Dependency(\.continuousClock) var clock
          Self.clocks.append("effect: \(type(of: clock))")
        }
      }
    }
    let store = Store(initialState: 0) {
      Child()
        .dependency(\.continuousClock, ImmediateClock())
    }
    await store.send(()).finish()
    #expect(Child.clocks.values == ["reducer: ImmediateClock", "effect: ImmediateClock"])
  }

  @Test func enumStatesAndTools() async {
    let clock = TestClock()
    let executor = TestExecutor()
    let issues = Log<StoreIssue>()
    let store = withDependencies {
      $0.continuousClock = clock
    } operation: {
      Store(
        initialState: Session.State.signedOut(SignIn.State()), reducer: Session(),
        onIssue: { issues.append($0) }, effectExecutor: executor)
    }
    let signIn = store.send(.signIn(.submitTapped))
    executor.drain()
    #expect(clock.sleeperCount == 1)
    // Signed in while the sign-in's effect sleeps: leaving the case cancels that effect, so
    // running the clock wakes nobody, and nothing arrives for the case that is gone.
    store.send(.signIn(.succeeded))
    await clock.run()
    await signIn.finish()
    #expect(store.state == .signedIn(Inbox.State()))
    #expect(issues.values.isEmpty)

    let unread = Store(
      initialState: UnreadCount.State(
        messages: [Message.State(id: 0, subject: "Hi"), Message.State(id: 1, subject: "Yo")],
        unread: 2)
    ) { UnreadCount() }
    unread.send(.messages(.element(id: 0, action: .markRead)))
    #expect(unread.unread == 1)
    await unread.send(.refreshTapped).finish()
  }
}
