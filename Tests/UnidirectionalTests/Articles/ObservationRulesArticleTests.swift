import Observation
import Testing
import Unidirectional
import UnidirectionalTestSupport

// The code of the article "Observation" (Unidirectional.docc/ObservationRules.md), compiled and
// run. Every ```swift block of the article appears here line for line (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

/// The article's names, kept apart from other tests' features.
enum ObservationArticle {
  /// What the article's `print` calls write in the current test.
  @TaskLocal static var output: Log<String>?

  /// Stands for `Swift.print` in the article's code: the line goes to the test's `output`.
  static func print(_ items: Any...) {
    output?.append(items.map { "\($0)" }.joined(separator: " "))
  }

  struct Scoreboard: Reducer {
    struct State: Equatable, Sendable {
      var title = "Scores"
      var count = 0
      var items: [String] = []
      var detail: Detail?
      var board = Board()
      var players: IdentifiedArray<Player> = []
    }
    struct Detail: Equatable, Sendable {
      var count = 0
    }
    struct Board: Equatable, Sendable {
      var cells = Array(repeating: "", count: 9)
    }
    struct Player: Equatable, Sendable, Identifiable {
      let id: Int
      var name: String
      var score = 0
    }

    enum Action: Sendable {
      case increment
      case rename(String)
      case play(cell: Int, mark: String)
      case score(playerID: Int)
      case removeLastItem
      case closeDetail
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment: state.count += 1
      case .rename(let title): state.title = title
      case .play(let cell, let mark): state.board.cells[cell] = mark
      case .score(let id): state.players[id: id]?.score += 1
      case .removeLastItem: state.items.removeLast()
      case .closeDetail: state.detail = nil
      }
      return .none
    }
  }

  final class CountLabel {
    private var token: ObservationToken?

    init(store: Store<Scoreboard.State, Scoreboard.Action>) {
      token = store.observe { print("count:", store.count) }
    }
  }
}

extension ObservationArticle {
  @Suite struct Tests {
    /// Runs `body` with the article's `print` writing to a fresh log, and returns the lines.
    func printed(_ body: () -> Void) -> [String] {
      let log = Log<String>()
      ObservationArticle.$output.withValue(log, operation: body)
      return log.values
    }

    @Test func theLabelPrintsWhileItLives() {
      let store = Store(initialState: Scoreboard.State()) { Scoreboard() }
      var label: CountLabel? = CountLabel(store: store)
      let lines = printed {
        store.send(.increment)
        store.send(.rename("Finals"))
        label = nil
        store.send(.increment)
      }
      #expect(label == nil)
      #expect(lines == ["count: 1"])
    }

    @Test func guardsProtectTheReadsAfterThem() {
      let store = Store(
        initialState: Scoreboard.State(
          items: (0..<8).map { "item \($0)" }, detail: Scoreboard.Detail(count: 2))
      ) { Scoreboard() }
      let lines = printed {
        let token = store.observe {
          if store.items.count > 7 {
            print(store[\.items[7]])  // not evaluated after an action that shrinks `items`
          }
          if store.detail != nil {
            print(store[\.detail!.count])  // nor after one that clears `detail`
          }
        }
        store.send(.removeLastItem)
        store.send(.closeDetail)
        store.send(.removeLastItem)
        withExtendedLifetime(token) {}
      }
      // The first run, then the run after each of the first two actions; the third changed
      // nothing the observer read in its last run.
      #expect(lines == ["item 7", "2", "2"])
    }

    @Test func eachReadFormReRunsForItsOwnChanges() {
      let store = Store(
        initialState: Scoreboard.State(players: [Scoreboard.Player(id: 7, name: "Ann", score: 3)])
      ) { Scoreboard() }
      var lines: [String] = []
      let all = printed {
        let tokens = [
          store.observe { print(store.state.count) },  // the whole state
          store.observe { print(store.count) },  // a stored property
          store.observe { print(store[\.board.cells[4]]) },  // a key path through a subscript
          store.observe { print(store[\.players, id: 7, \.score] ?? 0) },  // a row's value, by id
          store.observe(\.title) { title in print(title) },  // one value, given to the closure
        ]
        lines = printed { store.send(.rename("Finals")) }
        #expect(lines == ["0", "Finals"])
        lines = printed { store.send(.score(playerID: 7)) }
        #expect(lines == ["0", "4"])
        lines = printed { store.send(.play(cell: 3, mark: "X")) }
        #expect(lines == ["0"])
        lines = printed { store.send(.play(cell: 4, mark: "O")) }
        #expect(lines == ["0", "O"])
        lines = printed { store.send(.increment) }
        #expect(lines == ["1", "1"])
        withExtendedLifetime(tokens) {}
      }
      #expect(all == ["0", "0", "", "3", "Scores"])
    }

    @Test func aKeyPathReadIsPreciseWhereADynamicMemberIsNot() {
      let store = Store(initialState: Scoreboard.State()) { Scoreboard() }
      let lines = printed {
        let imprecise = store.observe { print(store.board.cells[4]) }  // re-runs for any cell
        let precise = store.observe { print(store[\.board.cells[4]]) }  // re-runs for cell 4 only
        store.send(.play(cell: 3, mark: "X"))  // re-runs `imprecise` only
        withExtendedLifetime((imprecise, precise)) {}
      }
      #expect(lines == ["", "", ""])
    }

    @Test func observationTrackingHearsOfTheFirstChangeOfWhatItRead() {
      let store = Store(initialState: Scoreboard.State()) { Scoreboard() }
      let lines = printed {
        withObservationTracking {
          print(store.count)
        } onChange: {
          print("count will change")
        }
        store.send(.rename("Finals"))  // prints nothing: `count` did not change
        store.send(.increment)  // prints "count will change"
        store.send(.increment)
      }
      #expect(lines == ["0", "count will change"])
    }
  }
}
