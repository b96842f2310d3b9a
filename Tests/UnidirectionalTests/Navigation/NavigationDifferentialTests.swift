import Dispatch
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// A child's effects die with the child, however it goes away (issue 33), checked against a
// model. Random programs (a seed each, replayable) present, dismiss (by action and by a sibling
// reducer's edit, the sibling combined before or after the navigation reducers), replace and
// rename children in every container: a sheet, an optional, a stack, rows, an enum's cases, an
// `Identifiable` enum's case, a presented destination with two cases, and a grandchild presented
// by any of them. The children start effects that send from their own task, a child task, an
// unstructured task, a detached task or a Dispatch queue, after waiting on gates the test opens
// one at a time, never on the clock. After every step the store's children (and the ticks each
// got) and its issues are compared with the model's, which knows for every effect whether its
// action reaches its child, is dropped in silence, or is dropped and reported; at the end no
// effect is left running.

/// The gates of the effects a program starts, one pair per token: `go` is opened by the test;
/// `done` by the effect once its `send` returned (it returns at once when the action is dropped).
final class DifferentialTokens: Sendable {
  private let storage = Locked<[Int: (go: Gate, done: Gate)]>([:])

  /// The gates of `token`, made the first time.
  func gates(_ token: Int) -> (go: Gate, done: Gate) {
    storage.withLock { gates in
      if let pair = gates[token] { return pair }
      let pair = (go: Gate(), done: Gate())
      gates[token] = pair
      return pair
    }
  }
}

/// Where an effect of a child calls its `Send` from.
enum DifferentialSender: String, Equatable, Sendable, CaseIterable {
  /// The effect's own task (cancelled with the child).
  case structured
  /// A child task of the effect's task, in a task group (cancelled with it).
  case childTask
  /// A `Task {}` the effect starts (never cancelled).
  case unstructured
  /// A `Task.detached {}` the effect starts: no task-local of the store.
  case detached
  /// A task made on a Dispatch queue the effect hands its `Send` to.
  case dispatch

  /// Whether the task that sends is cancelled when the child is gone (its send is then silent).
  var isCancelledWithItsChild: Bool {
    self == .structured || self == .childTask
  }
}

/// The effects of children and grandchildren: each waits for its token's gate, then sends
/// `tick(token)`.
enum DifferentialEffects {
  /// Reports of dropped actions name a line of `effect`, between these two.
  static let lines: ClosedRange<UInt> = firstLine...lastLine
  static let firstLine: UInt = #line
  static func effect<Action: Sendable>(
    token: Int, from sender: DifferentialSender, gates: (go: Gate, done: Gate),
    tick: @escaping @Sendable (Int) -> Action
  ) -> Effect<Action> {
    let (go, done) = gates
    switch sender {
    case .structured:
      // Gate.wait is not cancellable: a cancelled effect still reaches its send, which drops the
      // action in silence.
      return .run { send in
        await go.wait()
        await send(tick(token))
        done.open()
      }
    case .childTask:
      return .run { send in
        await withTaskGroup(of: Void.self) { group in
          group.addTask {
            await go.wait()
            await send(tick(token))
            done.open()
          }
        }
      }
    case .unstructured:
      return .run { send in
        Task {
          await go.wait()
          await send(tick(token))
          done.open()
        }
      }
    case .detached:
      return .run { send in
        Task.detached {
          await go.wait()
          await send(tick(token))
          done.open()
        }
      }
    case .dispatch:
      return .run { send in
        DispatchQueue.global().async {
          Task {
            await go.wait()
            await send(tick(token))
            done.open()
          }
        }
      }
    }
  }
  static let lastLine: UInt = #line
}

/// A child presented by a child.
struct DifferentialGrandchild: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    /// The tokens of the ticks this grandchild received, in order.
    var ticks: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case start(token: Int, from: DifferentialSender)
    case tick(Int)
  }

  let tokens: DifferentialTokens

  var body: some Reducer<State, Action> {
    Reduce { [tokens] state, action in
      switch action {
      case .start(let token, let sender):
        return DifferentialEffects.effect(
          token: token, from: sender, gates: tokens.gates(token), tick: Action.tick)
      case .tick(let token):
        state.ticks.append(token)
        return .none
      }
    }
  }
}

/// A child whose effects wait for their token's gate, then send `.tick(token)`, and which may
/// present a grandchild.
struct DifferentialChild: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    /// The tokens of the ticks this child received, in order.
    var ticks: [Int] = []
    @PresentationState var inner: DifferentialGrandchild.State?
  }

  enum Action: Equatable, Sendable {
    case start(token: Int, from: DifferentialSender)
    case tick(Int)
    /// The child changes its own id.
    case setID(Int)
    /// The child presents a grandchild with this id.
    case presentInner(Int)
    case inner(PresentationAction<DifferentialGrandchild.Action>)
  }

  let tokens: DifferentialTokens

  var body: some Reducer<State, Action> {
    Reduce { [tokens] state, action in
      switch action {
      case .start(let token, let sender):
        return DifferentialEffects.effect(
          token: token, from: sender, gates: tokens.gates(token), tick: Action.tick)
      case .tick(let token):
        state.ticks.append(token)
        return .none
      case .setID(let id):
        state.id = id
        return .none
      case .presentInner(let id):
        state.inner = DifferentialGrandchild.State(id: id)
        return .none
      case .inner:
        return .none
      }
    }
    .ifLet(\.$inner, action: .case(Action.inner)) { DifferentialGrandchild(tokens: tokens) }
  }
}

/// A parent with a child in each navigation container, and a sibling reducer that edits the
/// state, combined before or after the navigation reducers.
struct DifferentialParent: Reducer {
  enum Mode: Equatable, Sendable {
    case idle
    case editing(DifferentialChild.State)
    case viewing(DifferentialChild.State)
  }

  enum ModeAction: Equatable, Sendable {
    case editing(DifferentialChild.Action)
    case viewing(DifferentialChild.Action)
  }

  /// A presented destination with two cases: another case is another presentation; another id
  /// in the same case is the same presentation, but another child of its `ifCaseLet`.
  enum Destination: Equatable, Sendable {
    case first(DifferentialChild.State)
    case second(DifferentialChild.State)
  }

  enum DestinationAction: Equatable, Sendable {
    case first(DifferentialChild.Action)
    case second(DifferentialChild.Action)
  }

  /// An `Identifiable` enum: its `ifCaseLet` child's identity is the case and the enum's id,
  /// which children with ids 1 and 2 share (see `NavigationDifferential.panelID`).
  enum Panel: Equatable, Sendable, Identifiable {
    case closed
    case open(DifferentialChild.State)

    var id: Int {
      switch self {
      case .closed: 0
      case .open(let child): NavigationDifferential.panelID(child.id)
      }
    }
  }

  enum PanelAction: Equatable, Sendable {
    case open(DifferentialChild.Action)
  }

  struct State: Equatable, Sendable {
    @PresentationState var sheet: DifferentialChild.State?
    var optional: DifferentialChild.State?
    var path = StackState<DifferentialChild.State>()
    var rows: IdentifiedArray<DifferentialChild.State> = []
    var mode = Mode.idle
    @PresentationState var destination: Destination?
    var panel = Panel.closed
  }

  /// What the sibling reducer does to the state.
  enum Edit: Equatable, Sendable {
    case presentSheet(Int)
    case clearSheet
    case setOptional(Int?)
    case push(Int)
    case popLast
    case addRow(Int)
    case removeRow(Int)
    case setMode(Mode)
    case setDestination(Destination?)
    case setPanel(Panel)
    /// Changes the id of the child at a place in place (its other state kept).
    case rename(NavigationDifferential.Place, Int)
    /// Removes the child at a place and puts a new one with the same id there, in one action.
    case reopen(NavigationDifferential.Place)
  }

  enum Action: Equatable, Sendable {
    case sheet(PresentationAction<DifferentialChild.Action>)
    case optional(DifferentialChild.Action)
    case path(StackAction<DifferentialChild.State, DifferentialChild.Action>)
    case rows(IdentifiedActionOf<DifferentialChild>)
    case mode(ModeAction)
    case destination(PresentationAction<DestinationAction>)
    case panel(PanelAction)
    case edit(Edit)
  }

  /// Whether the sibling reducer runs before the navigation reducers (else after them).
  let siblingFirst: Bool
  let child: DifferentialChild

  var body: some Reducer<State, Action> {
    Reduce(sibling(runsFirst: true))
    Reduce { _, _ in .none }
      .ifLet(\.$sheet, action: .case(Action.sheet)) { child }
      .ifLet(\.optional, action: .case(Action.optional)) { child }
      .forEach(\.path, action: .case(Action.path)) { child }
      .forEach(\.rows, action: .case(Action.rows)) { child }
      .ifLet(\.$destination, action: .case(Action.destination)) {
        Reduce<Destination, DestinationAction> { _, _ in .none }
          .ifCaseLet(.case(Destination.first), action: .case(DestinationAction.first)) { child }
          .ifCaseLet(.case(Destination.second), action: .case(DestinationAction.second)) {
            child
          }
      }
    Scope(state: \.mode, action: .case(Action.mode)) {
      Reduce<Mode, ModeAction> { _, _ in .none }
        .ifCaseLet(.case(Mode.editing), action: .case(ModeAction.editing)) { child }
        .ifCaseLet(.case(Mode.viewing), action: .case(ModeAction.viewing)) { child }
    }
    Scope(state: \.panel, action: .case(Action.panel)) {
      Reduce<Panel, PanelAction> { _, _ in .none }
        .ifCaseLet(.case(Panel.open), action: .case(PanelAction.open)) { child }
    }
    Reduce(sibling(runsFirst: false))
  }

  func sibling(runsFirst: Bool) -> @Sendable (inout State, Action) -> Effect<Action> {
    { [siblingFirst] state, action in
      guard siblingFirst == runsFirst, case .edit(let edit) = action else { return .none }
      switch edit {
      case .presentSheet(let id): state.sheet = DifferentialChild.State(id: id)
      case .clearSheet: state.sheet = nil
      case .setOptional(let id): state.optional = id.map { DifferentialChild.State(id: $0) }
      case .push(let id): state.path.append(DifferentialChild.State(id: id))
      case .popLast: _ = state.path.popLast()
      case .addRow(let id): state.rows.append(DifferentialChild.State(id: id))
      case .removeRow(let id): _ = state.rows.remove(id: id)
      case .setMode(let mode): state.mode = mode
      case .setDestination(let destination): state.destination = destination
      case .setPanel(let panel): state.panel = panel
      case .rename(let place, let id): Self.rename(place, to: id, in: &state)
      case .reopen(let place): Self.reopen(place, in: &state)
      }
      return .none
    }
  }

  static func reopen(_ place: NavigationDifferential.Place, in state: inout State) {
    switch place {
    case .sheet:
      guard let id = state.sheet?.id else { return }
      state.sheet = nil
      state.sheet = DifferentialChild.State(id: id)
    case .optional:
      guard let id = state.optional?.id else { return }
      state.optional = nil
      state.optional = DifferentialChild.State(id: id)
    case .editing, .viewing:
      switch state.mode {
      case .idle: break
      case .editing(let child):
        state.mode = .idle
        state.mode = .editing(DifferentialChild.State(id: child.id))
      case .viewing(let child):
        state.mode = .idle
        state.mode = .viewing(DifferentialChild.State(id: child.id))
      }
    case .first, .second:
      switch state.destination {
      case nil: break
      case .first(let child)?:
        state.destination = nil
        state.destination = .first(DifferentialChild.State(id: child.id))
      case .second(let child)?:
        state.destination = nil
        state.destination = .second(DifferentialChild.State(id: child.id))
      }
    case .row(let id):
      state.rows.remove(id: id)
      state.rows.append(DifferentialChild.State(id: id))
    case .panel:
      guard case .open(let child) = state.panel else { return }
      state.panel = .closed
      state.panel = .open(DifferentialChild.State(id: child.id))
    case .element, .inner: break
    }
  }

  static func rename(_ place: NavigationDifferential.Place, to id: Int, in state: inout State) {
    switch place {
    case .sheet: state.sheet?.id = id
    case .optional: state.optional?.id = id
    case .element(let generation):
      state.path[id: StackElementID(integerLiteral: generation)]?.id = id
    case .editing, .viewing:
      switch state.mode {
      case .idle: break
      case .editing(var child):
        child.id = id
        state.mode = .editing(child)
      case .viewing(var child):
        child.id = id
        state.mode = .viewing(child)
      }
    case .first, .second:
      switch state.destination {
      case nil: break
      case .first(var child)?:
        child.id = id
        state.destination = .first(child)
      case .second(var child)?:
        child.id = id
        state.destination = .second(child)
      }
    case .panel:
      guard case .open(var child) = state.panel else { return }
      child.id = id
      state.panel = .open(child)
    case .row, .inner: break
    }
  }
}

/// The model: plain Swift, no library.
enum NavigationDifferential {
  /// The id of the panel that shows a child with `id`: 1 and 2 share one.
  static func panelID(_ id: Int) -> Int { (id + 1) / 2 }

  /// Where a child is.
  indirect enum Place: Equatable, Sendable, CustomStringConvertible {
    case sheet, optional, editing, viewing
    /// The cases of the presented destination.
    case first, second
    /// The stack element with this generation.
    case element(Int)
    /// The row with this id.
    case row(Int)
    /// The `Identifiable` enum's case.
    case panel
    /// The grandchild presented by the child at this place.
    case inner(Place)

    var description: String {
      switch self {
      case .sheet: "sheet"
      case .optional: "optional"
      case .editing: "editing"
      case .viewing: "viewing"
      case .first: "first"
      case .second: "second"
      case .element(let generation): "element #\(generation)"
      case .row(let id): "row \(id)"
      case .panel: "panel"
      case .inner(let place): "inner of \(place)"
      }
    }
  }

  /// One step of a program.
  enum Step: Equatable, Sendable, CustomStringConvertible {
    /// The sibling sets the sheet to a new child with `id` (a new presentation unless the
    /// presented child has that id).
    case presentSheet(Int)
    /// The sibling sets the sheet to `nil`.
    case clearSheet
    /// `.sheet(.dismiss)`.
    case dismissSheet
    /// The sibling sets the optional child (`ifLet` without presentation).
    case setOptional(Int?)
    /// The sibling pushes a child with `id`.
    case push(Int)
    /// The sibling pops the last element.
    case popLast
    /// `.path(.popFrom(id:))`: pops the element with this generation and those above it.
    case popFrom(Int)
    /// The sibling appends a row with `id`.
    case addRow(Int)
    /// The sibling removes the row with `id`.
    case removeRow(Int)
    /// The sibling sets the mode to `.editing` of a child with `id`.
    case enterEditing(Int)
    /// The sibling sets the mode to `.viewing` of a child with `id`.
    case enterViewing(Int)
    /// The sibling sets the mode to `.idle`.
    case leaveCase
    /// The sibling presents the destination `.first` of a child with `id`.
    case presentFirst(Int)
    /// The sibling presents the destination `.second` of a child with `id`.
    case presentSecond(Int)
    /// The sibling sets the destination to `nil`.
    case clearDestination
    /// `.destination(.dismiss)`.
    case dismissDestination
    /// The sibling sets the panel to `.open` with a child with `id` (the same child if the panel
    /// is open with the same id).
    case openPanel(Int)
    /// The sibling sets the panel to `.closed`.
    case closePanel
    /// The sibling changes the id of the child at the place in place, keeping its ticks.
    case rename(Place, Int)
    /// The child at the place changes its own id (`.setID`).
    case renameItself(Place, Int)
    /// The sibling removes the child at the place and puts a new one with the same id there, in
    /// one action.
    case reopen(Place)
    /// The child at the place presents a grandchild with `id`.
    case presentInner(Place, Int)
    /// The child at the place sends `.inner(.dismiss)`.
    case dismissInner(Place)
    /// The child at `place` starts an effect that sends `.tick(token)` from `sender`.
    case start(token: Int, place: Place, sender: DifferentialSender)
    /// The test opens the gate of `token` and waits until its send has happened.
    case open(Int)

    var description: String {
      switch self {
      case .presentSheet(let id): "presentSheet(\(id))"
      case .clearSheet: "clearSheet"
      case .dismissSheet: "dismissSheet"
      case .setOptional(let id): "setOptional(\(id.map(String.init) ?? "nil"))"
      case .push(let id): "push(\(id))"
      case .popLast: "popLast"
      case .popFrom(let generation): "popFrom(#\(generation))"
      case .addRow(let id): "addRow(\(id))"
      case .removeRow(let id): "removeRow(\(id))"
      case .enterEditing(let id): "enterEditing(\(id))"
      case .enterViewing(let id): "enterViewing(\(id))"
      case .leaveCase: "leaveCase"
      case .presentFirst(let id): "presentFirst(\(id))"
      case .presentSecond(let id): "presentSecond(\(id))"
      case .clearDestination: "clearDestination"
      case .dismissDestination: "dismissDestination"
      case .openPanel(let id): "openPanel(\(id))"
      case .closePanel: "closePanel"
      case .rename(let place, let id): "rename(\(place), \(id))"
      case .renameItself(let place, let id): "renameItself(\(place), \(id))"
      case .reopen(let place): "reopen(\(place))"
      case .presentInner(let place, let id): "presentInner(\(place), \(id))"
      case .dismissInner(let place): "dismissInner(\(place))"
      case .start(let token, let place, let sender): "start(\(token), \(place), \(sender))"
      case .open(let token): "open(\(token))"
      }
    }
  }

  /// A child as a test can see it in the state: its id, the ticks it received, and its
  /// grandchild (none or one).
  struct Child: Equatable, Sendable, CustomStringConvertible {
    var id: Int
    var ticks: [Int] = []
    var inner: [Child] = []

    var description: String {
      "\(id)\(ticks)" + (inner.first.map { " { inner \($0) }" } ?? "")
    }

    init(id: Int, ticks: [Int], inner: [Child] = []) {
      self.id = id
      self.ticks = ticks
      self.inner = inner
    }

    init(_ state: DifferentialChild.State) {
      self.init(
        id: state.id, ticks: state.ticks,
        inner: state.inner.map { [Child(id: $0.id, ticks: $0.ticks)] } ?? [])
    }
  }

  /// The children of the state, in each container.
  struct Snapshot: Equatable, CustomStringConvertible {
    var sheet: Child?
    var optional: Child?
    /// The stack: generation and child, bottom first.
    var path: [Int: Child] = [:]
    var pathOrder: [Int] = []
    var rows: [Child] = []
    /// `editing` or `viewing`, and the child; `nil` when idle.
    var mode: String?
    var modeChild: Child?
    /// `first` or `second`, and the child; `nil` when nothing is presented.
    var destination: String?
    var destinationChild: Child?
    var panel: Child?

    var description: String {
      let stack = pathOrder.map { "#\($0): \(path[$0]!)" }.joined(separator: ", ")
      return "sheet: \(sheet.map(String.init(describing:)) ?? "nil"), "
        + "optional: \(optional.map(String.init(describing:)) ?? "nil"), path: [\(stack)], "
        + "rows: \(rows), mode: \(mode.map { "\($0) \(modeChild!)" } ?? "idle"), "
        + "destination: \(destination.map { "\($0) \(destinationChild!)" } ?? "nil"), "
        + "panel: \(panel.map(String.init(describing:)) ?? "closed")"
    }

    /// The children of the store's state.
    init(_ state: DifferentialParent.State) {
      sheet = state.sheet.map(Child.init)
      optional = state.optional.map(Child.init)
      for (id, element) in zip(state.path.ids, state.path) {
        path[id.generation] = Child(element)
        pathOrder.append(id.generation)
      }
      rows = state.rows.map(Child.init)
      switch state.mode {
      case .idle: break
      case .editing(let child):
        mode = "editing"
        modeChild = Child(child)
      case .viewing(let child):
        mode = "viewing"
        modeChild = Child(child)
      }
      switch state.destination {
      case nil: break
      case .first(let child)?:
        destination = "first"
        destinationChild = Child(child)
      case .second(let child)?:
        destination = "second"
        destinationChild = Child(child)
      }
      if case .open(let child) = state.panel { panel = Child(child) }
    }

    init() {}
  }

  /// What the library should do, by the rule of issue 33.
  ///
  /// Every child the state holds is an instance (a serial number), alive while its identity
  /// lasts: presence and id (`ifLet`; a presentation too, where replacing the child with one of
  /// the same id keeps it, with the new child's state, and `nil` in between ends it), the case
  /// and id (`ifCaseLet`, the destination's cases), the generation (a stack element;
  /// generations are never reused, and an element's own id is not its identity), the row id
  /// while the row is there (a row removed and added back in another action is another child).
  /// A grandchild lives inside its child's instance: it ends with it, and a child renamed into
  /// a new instance carries a new instance of its grandchild. When the gate of a token opens:
  /// - its child alive: the tick is applied to that child, and to no other;
  /// - its child gone, the send from the effect's own task: dropped in silence (that task was
  ///   cancelled with the child);
  /// - its child gone, the send from any other task: dropped and reported, once.
  struct Model {
    /// A child or grandchild alive.
    struct Entry {
      var id: Int
      var ticks: [Int] = []
      /// The serial of its grandchild.
      var inner: Int?
    }

    /// The children and grandchildren alive, by serial.
    var children: [Int: Entry] = [:]
    var sheet: Int?
    var optional: Int?
    /// Generation and serial of each element, bottom first.
    var path: [(generation: Int, serial: Int)] = []
    var nextGeneration = 0
    /// Serials, in order.
    var rows: [Int] = []
    /// The case (`editing` or `viewing`) and the serial.
    var mode: (name: String, serial: Int)?
    /// The destination's case (`first` or `second`) and the serial.
    var destination: (name: String, serial: Int)?
    var panel: Int?
    var nextSerial = 0
    /// The tokens started and not opened: their child's serial, and where they send from.
    var pending: [Int: (serial: Int, sender: DifferentialSender)] = [:]
    /// The tokens whose ticks were dropped and reported, in order.
    var reports: [Int] = []

    /// A new child with `id`.
    mutating func make(_ id: Int, ticks: [Int] = []) -> Int {
      let serial = nextSerial
      nextSerial += 1
      children[serial] = Entry(id: id, ticks: ticks)
      return serial
    }

    /// The child `serial` is gone, and its grandchild with it.
    mutating func end(_ serial: Int?) {
      guard let serial, let entry = children.removeValue(forKey: serial) else { return }
      end(entry.inner)
    }

    /// `serial` replaced by a child with `id`: the same child (with a fresh state, without a
    /// grandchild) if the identities the ids give are equal, else a new one.
    mutating func replace(
      _ serial: Int?, with id: Int, identity: (Int) -> Int = { $0 }
    ) -> Int {
      if let serial, let entry = children[serial], identity(entry.id) == identity(id) {
        end(entry.inner)
        children[serial] = Entry(id: id)
        return serial
      }
      end(serial)
      return make(id)
    }

    /// The serial of the child at `place`, if there is one.
    func serial(at place: Place) -> Int? {
      switch place {
      case .sheet: sheet
      case .optional: optional
      case .editing: mode?.name == "editing" ? mode?.serial : nil
      case .viewing: mode?.name == "viewing" ? mode?.serial : nil
      case .first: destination?.name == "first" ? destination?.serial : nil
      case .second: destination?.name == "second" ? destination?.serial : nil
      case .element(let generation): path.first { $0.generation == generation }?.serial
      case .row(let id): rows.first { children[$0]?.id == id }
      case .panel: panel
      case .inner(let place): serial(at: place).flatMap { children[$0]?.inner }
      }
    }

    /// Whether `step` can run now (a shrunk program may hold steps that cannot).
    func allows(_ step: Step) -> Bool {
      switch step {
      case .dismissSheet: sheet != nil
      case .dismissDestination: destination != nil
      case .popFrom(let generation): serial(at: .element(generation)) != nil
      case .addRow(let id): serial(at: .row(id)) == nil
      case .removeRow(let id): serial(at: .row(id)) != nil
      case .rename(let place, _): Self.canRename(place) && serial(at: place) != nil
      case .renameItself(let place, _): Self.canRenameItself(place) && serial(at: place) != nil
      case .reopen(let place): Self.canReopen(place) && serial(at: place) != nil
      case .presentInner(let place, _): !Self.isInner(place) && serial(at: place) != nil
      case .dismissInner(let place): !Self.isInner(place) && serial(at: .inner(place)) != nil
      case .start(let token, let place, _): serial(at: place) != nil && pending[token] == nil
      case .open(let token): pending[token] != nil
      default: true
      }
    }

    /// Applies `step`, which `allows` allowed.
    mutating func apply(_ step: Step) {
      switch step {
      case .presentSheet(let id): sheet = replace(sheet, with: id)
      case .clearSheet, .dismissSheet:
        end(sheet)
        sheet = nil
      case .setOptional(let id):
        if let id {
          optional = replace(optional, with: id)
        } else {
          end(optional)
          optional = nil
        }
      case .push(let id):
        path.append((nextGeneration, make(id)))
        nextGeneration += 1
      case .popLast:
        if let last = path.popLast() { end(last.serial) }
      case .popFrom(let generation):
        let index = path.firstIndex { $0.generation == generation }!
        for element in path[index...] { end(element.serial) }
        path.removeSubrange(index...)
      case .addRow(let id): rows.append(make(id))
      case .removeRow(let id):
        let serial = serial(at: .row(id))!
        end(serial)
        rows.removeAll { $0 == serial }
      case .enterEditing(let id): enter("editing", id, at: \.mode)
      case .enterViewing(let id): enter("viewing", id, at: \.mode)
      case .leaveCase:
        end(mode?.serial)
        mode = nil
      case .presentFirst(let id): enter("first", id, at: \.destination)
      case .presentSecond(let id): enter("second", id, at: \.destination)
      case .clearDestination, .dismissDestination:
        end(destination?.serial)
        destination = nil
      case .openPanel(let id): panel = replace(panel, with: id, identity: Self.identity(at: .panel))
      case .closePanel:
        end(panel)
        panel = nil
      case .rename(let place, let id), .renameItself(let place, let id):
        rename(place, to: id)
      case .reopen(let place): reopen(place)
      case .presentInner(let place, let id):
        let serial = serial(at: place)!
        children[serial]!.inner = replace(children[serial]!.inner, with: id)
      case .dismissInner(let place):
        let serial = serial(at: place)!
        end(children[serial]!.inner)
        children[serial]!.inner = nil
      case .start(let token, let place, let sender):
        pending[token] = (serial(at: place)!, sender)
      case .open(let token):
        let (serial, sender) = pending.removeValue(forKey: token)!
        if children[serial] != nil {
          children[serial]!.ticks.append(token)
        } else if !sender.isCancelledWithItsChild {
          reports.append(token)
        }
      }
    }

    /// What of a child's id is its identity at `place`: the panel's id for the panel, the id
    /// elsewhere.
    static func identity(at place: Place) -> (Int) -> Int {
      place == .panel ? { NavigationDifferential.panelID($0) } : { $0 }
    }

    static func isInner(_ place: Place) -> Bool {
      if case .inner = place { return true }
      return false
    }

    /// A row's id cannot change in its `IdentifiedArray`; a grandchild is not renamed.
    static func canRename(_ place: Place) -> Bool {
      switch place {
      case .row, .inner: false
      default: true
      }
    }

    /// A row's id cannot change; a presented child that changes its own id keeps its
    /// presentation today (see `aPresentedChildChangingItsOwnIDIsANewChild`).
    static func canRenameItself(_ place: Place) -> Bool {
      switch place {
      // A row that changed its own id would break its collection's index: rows never do. A
      // grandchild (a `Screen`) has no action that changes its id.
      case .row, .inner: false
      default: true
      }
    }

    /// A stack element put back would be another element: a push.
    static func canReopen(_ place: Place) -> Bool {
      switch place {
      case .element, .inner: false
      default: true
      }
    }

    /// The child at `place` removed and put back with its id, in one action: a presentation
    /// put back is a new one (the `nil` in between ended it), the others are the same child
    /// with a fresh state (their identity, read after the action, is the same); a row moves
    /// to the end.
    mutating func reopen(_ place: Place) {
      let serial = serial(at: place)!
      let id = children[serial]!.id
      switch place {
      case .sheet:
        end(serial)
        sheet = make(id)
      case .first, .second:
        end(serial)
        destination!.serial = make(id)
      case .optional, .editing, .viewing: _ = replace(serial, with: id)
      case .panel: _ = replace(serial, with: id, identity: Self.identity(at: .panel))
      case .row:
        _ = replace(serial, with: id)
        rows.removeAll { $0 == serial }
        rows.append(serial)
      case .element, .inner: break
      }
    }

    /// The child at `place` takes the id `id`, keeping its ticks and its grandchild: a new
    /// child (with a new instance of its grandchild) if the id differs and is part of its
    /// identity (everywhere but a stack, whose elements are identified by their generation).
    mutating func rename(_ place: Place, to id: Int) {
      let serial = serial(at: place)!
      let old = children[serial]!
      let identity = Self.identity(at: place)
      if case .element = place {
        children[serial]!.id = id
        return
      }
      guard identity(old.id) != identity(id) else {
        children[serial]!.id = id
        return
      }
      let inner = old.inner.map { make(children[$0]!.id, ticks: children[$0]!.ticks) }
      end(serial)
      let new = make(id, ticks: old.ticks)
      children[new]!.inner = inner
      switch place {
      case .sheet: sheet = new
      case .optional: optional = new
      case .editing, .viewing: mode!.serial = new
      case .first, .second: destination!.serial = new
      case .panel: panel = new
      case .element, .row, .inner: break
      }
    }

    /// The enum at `slot` set to the case `name` of a child with `id`: the same child if the
    /// case and id are the same, else a new one.
    mutating func enter(
      _ name: String, _ id: Int, at slot: WritableKeyPath<Model, (name: String, serial: Int)?>
    ) {
      if let current = self[keyPath: slot], current.name == name {
        self[keyPath: slot] = (name, replace(current.serial, with: id))
      } else {
        end(self[keyPath: slot]?.serial)
        self[keyPath: slot] = (name, make(id))
      }
    }

    /// The child `serial` as the state should show it.
    func child(_ serial: Int) -> Child {
      let entry = children[serial]!
      return Child(id: entry.id, ticks: entry.ticks, inner: entry.inner.map { [child($0)] } ?? [])
    }

    /// The children the store's state should hold.
    var snapshot: Snapshot {
      var snapshot = Snapshot()
      snapshot.sheet = sheet.map(child)
      snapshot.optional = optional.map(child)
      for (generation, serial) in path {
        snapshot.path[generation] = child(serial)
        snapshot.pathOrder.append(generation)
      }
      snapshot.rows = rows.map(child)
      snapshot.mode = mode?.name
      snapshot.modeChild = mode.map { child($0.serial) }
      snapshot.destination = destination?.name
      snapshot.destinationChild = destination.map { child($0.serial) }
      snapshot.panel = panel.map(child)
      return snapshot
    }

    /// The places where a child is (not a grandchild).
    var childPlaces: [Place] {
      var places: [Place] = []
      if sheet != nil { places.append(.sheet) }
      if optional != nil { places.append(.optional) }
      if let mode { places.append(mode.name == "editing" ? .editing : .viewing) }
      if let destination { places.append(destination.name == "first" ? .first : .second) }
      if panel != nil { places.append(.panel) }
      places += path.map { .element($0.generation) }
      places += rows.map { .row(children[$0]!.id) }
      return places
    }

    /// The places where a child or a grandchild is.
    var places: [Place] {
      childPlaces + childPlaces.filter { serial(at: .inner($0)) != nil }.map { .inner($0) }
    }
  }

  /// A random program of `count` steps for `seed`, made by running the model.
  static func program(seed: UInt64, count: Int) -> [Step] {
    var rng = SplitMix64(seed: seed)
    var model = Model()
    var steps: [Step] = []
    var nextToken = 0
    func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
    while steps.count < count {
      let id = 1 + Int(rng.next() % 3)
      let step: Step
      switch rng.next() % 100 {
      case 0..<25 where !model.pending.isEmpty:
        step = .open(pick(model.pending.keys.sorted()))
      case 0..<50 where !model.places.isEmpty:
        step = .start(
          token: nextToken, place: pick(model.places), sender: pick(DifferentialSender.allCases))
        nextToken += 1
      default:
        let generations = model.path.map(\.generation)
        let rowIDs = model.rows.map { model.children[$0]!.id }
        let place = model.places.isEmpty ? .sheet : pick(model.places)
        step = pick(
          [
            .presentSheet(id), .clearSheet, .dismissSheet, .setOptional(id), .setOptional(nil),
            .push(id), .popLast, .popFrom(generations.isEmpty ? 0 : pick(generations)),
            .addRow(1 + Int(rng.next() % 4)), .removeRow(rowIDs.isEmpty ? 0 : pick(rowIDs)),
            .enterEditing(id), .enterViewing(id), .leaveCase, .presentFirst(id),
            .presentSecond(id), .clearDestination, .dismissDestination, .rename(place, id),
            .renameItself(place, id), .reopen(place), .presentInner(place, id), .openPanel(id),
            .closePanel,
            .presentInner(place, id), .dismissInner(place),
          ])
      }
      guard model.allows(step) else { continue }
      model.apply(step)
      steps.append(step)
    }
    return steps
  }
}

// wall-clock: a hang bound only. Thousands of generated programs: 58 s in a full parallel run
// here, 92 s in a CI run beside two builds, both against the old 1-minute bound.
@Suite(.timeLimit(.minutes(10))) struct NavigationDifferentialTests {
  typealias Step = NavigationDifferential.Step

  static let seeds: Range<UInt64> = 0..<300
  static let stepsPerProgram = 40

  /// Runs `steps` (skipping those the model does not allow) on a new store, then opens the gates
  /// of the effects still waiting; compares the store with the model after every step.
  ///
  /// - Returns: What first differed, or `nil`.
  static func run(_ steps: [Step], siblingFirst: Bool) async -> String? {
    let tokens = DifferentialTokens()
    let issues = Log<StoreIssue>()
    let store = Store(
      initialState: DifferentialParent.State(),
      reducer: DifferentialParent(
        siblingFirst: siblingFirst, child: DifferentialChild(tokens: tokens)),
      onIssue: { issues.append($0) })
    var model = NavigationDifferential.Model()
    var executed: [Step] = []
    func compare(after step: Step) -> String? {
      let expected = model.snapshot
      let actual = NavigationDifferential.Snapshot(store.state)
      if actual != expected {
        return "after \(step) (step \(executed.count)):\n  store: \(actual)\n  model: \(expected)"
      }
      if let mismatch = Self.compare(issues.values, model.reports) {
        return "after \(step) (step \(executed.count)): \(mismatch)"
      }
      return nil
    }
    for step in steps where model.allows(step) {
      await perform(step, on: store, tokens: tokens)
      model.apply(step)
      executed.append(step)
      if let failure = compare(after: step) { return failure }
    }
    for token in model.pending.keys.sorted() {
      let step = Step.open(token)
      await perform(step, on: store, tokens: tokens)
      model.apply(step)
      executed.append(step)
      if let failure = compare(after: step) { return failure }
    }
    // Every gate is open and every send has happened: the effects end.
    await store.waitForEffects()
    let running = store.effects.runningCount
    return running == 0 ? nil : "\(running) effect tasks still running after every gate opened"
  }

  /// Sends what `step` stands for, or opens its gate and waits until its send has happened.
  static func perform(
    _ step: Step, on store: Store<DifferentialParent.State, DifferentialParent.Action>,
    tokens: DifferentialTokens
  ) async {
    switch step {
    case .presentSheet(let id): store.send(.edit(.presentSheet(id)))
    case .clearSheet: store.send(.edit(.clearSheet))
    case .dismissSheet: store.send(.sheet(.dismiss))
    case .setOptional(let id): store.send(.edit(.setOptional(id)))
    case .push(let id): store.send(.edit(.push(id)))
    case .popLast: store.send(.edit(.popLast))
    case .popFrom(let generation):
      store.send(.path(.popFrom(id: StackElementID(integerLiteral: generation))))
    case .addRow(let id): store.send(.edit(.addRow(id)))
    case .removeRow(let id): store.send(.edit(.removeRow(id)))
    case .enterEditing(let id):
      store.send(.edit(.setMode(.editing(DifferentialChild.State(id: id)))))
    case .enterViewing(let id):
      store.send(.edit(.setMode(.viewing(DifferentialChild.State(id: id)))))
    case .leaveCase: store.send(.edit(.setMode(.idle)))
    case .presentFirst(let id):
      store.send(.edit(.setDestination(.first(DifferentialChild.State(id: id)))))
    case .presentSecond(let id):
      store.send(.edit(.setDestination(.second(DifferentialChild.State(id: id)))))
    case .clearDestination: store.send(.edit(.setDestination(nil)))
    case .dismissDestination: store.send(.destination(.dismiss))
    case .openPanel(let id): store.send(.edit(.setPanel(.open(DifferentialChild.State(id: id)))))
    case .closePanel: store.send(.edit(.setPanel(.closed)))
    case .rename(let place, let id): store.send(.edit(.rename(place, id)))
    case .renameItself(let place, let id): send(.setID(id), to: place, in: store)
    case .reopen(let place): store.send(.edit(.reopen(place)))
    case .presentInner(let place, let id): send(.presentInner(id), to: place, in: store)
    case .dismissInner(let place): send(.inner(.dismiss), to: place, in: store)
    case .start(let token, .inner(let place), let sender):
      send(.inner(.presented(.start(token: token, from: sender))), to: place, in: store)
    case .start(let token, let place, let sender):
      send(.start(token: token, from: sender), to: place, in: store)
    case .open(let token):
      let gates = tokens.gates(token)
      gates.go.open()
      await gates.done.wait()
    }
  }

  /// Sends `action` to the child at `place`.
  static func send(
    _ action: DifferentialChild.Action, to place: NavigationDifferential.Place,
    in store: Store<DifferentialParent.State, DifferentialParent.Action>
  ) {
    switch place {
    case .sheet: store.send(.sheet(.presented(action)))
    case .optional: store.send(.optional(action))
    case .editing: store.send(.mode(.editing(action)))
    case .viewing: store.send(.mode(.viewing(action)))
    case .first: store.send(.destination(.presented(.first(action))))
    case .second: store.send(.destination(.presented(.second(action))))
    case .element(let generation):
      store.send(.path(.element(id: StackElementID(integerLiteral: generation), action: action)))
    case .row(let id): store.send(.rows(.element(id: id, action: action)))
    case .panel: store.send(.panel(.open(action)))
    case .inner: preconditionFailure("a grandchild's actions go through its child")
    }
  }

  /// What differs between the store's issues and the reports of the ticks of `expected`, if
  /// anything.
  static func compare(_ issues: [StoreIssue], _ expected: [Int]) -> String? {
    let mismatch =
      "issues: \(issues.map(String.init(describing:))), expected reports of ticks \(expected)"
    guard issues.count == expected.count else { return mismatch }
    for (issue, token) in zip(issues, expected) {
      guard case .actionFromDismissedChild(let action) = issue.kind,
        action.contains("tick(\(token))"),
        issue.fileID == "\(#fileID)", DifferentialEffects.lines.contains(issue.line)
      else { return mismatch }
    }
    return nil
  }

  /// Removes chunks of `steps` while the program still fails.
  static func shrink(_ steps: [Step], siblingFirst: Bool) async -> [Step] {
    var steps = steps
    var chunk = max(steps.count / 2, 1)
    while !steps.isEmpty {
      var removedAny = false
      var start = 0
      while start < steps.count {
        var candidate = steps
        candidate.removeSubrange(start..<min(start + chunk, steps.count))
        if await run(candidate, siblingFirst: siblingFirst) != nil {
          steps = candidate
          removedAny = true
        } else {
          start += chunk
        }
      }
      if chunk == 1 && !removedAny { break }
      chunk = removedAny ? chunk : max(chunk / 2, 1)
    }
    return steps
  }

  @Test(arguments: [true, false])
  func randomProgramsMatchTheModel(siblingFirst: Bool) async {
    for seed in Self.seeds {
      let steps = NavigationDifferential.program(seed: seed, count: Self.stepsPerProgram)
      guard let failure = await Self.run(steps, siblingFirst: siblingFirst) else { continue }
      let shrunk = await Self.shrink(steps, siblingFirst: siblingFirst)
      let shrunkFailure = await Self.run(shrunk, siblingFirst: siblingFirst) ?? "(passed)"
      Issue.record(
        """
        seed \(seed), siblingFirst: \(siblingFirst): \(failure)
        steps: \(steps)
        shrunk: \(shrunk)
        shrunk fails: \(shrunkFailure)
        """)
      return
    }
  }

  /// Issue 33: "A child that changes its own id is therefore a new child, as in TCA" (for all
  /// four containers), a presented child included: its effects end, and the old child's action
  /// never reaches the child with the new id. (Found by this suite before the fix: the
  /// presentation reducer wrote the child through the storage and kept the presentation.)
  @Test func aPresentedChildChangingItsOwnIDIsANewChild() async {
    let tokens = DifferentialTokens()
    let issues = Log<StoreIssue>()
    let store = Store(
      initialState: DifferentialParent.State(),
      reducer: DifferentialParent(siblingFirst: false, child: DifferentialChild(tokens: tokens)),
      onIssue: { issues.append($0) })
    store.send(.edit(.presentSheet(1)))
    let work = store.send(.sheet(.presented(.start(token: 0, from: .structured))))
    store.send(.sheet(.presented(.setID(2))))
    let cancelled = work.isCancelled
    tokens.gates(0).go.open()
    await tokens.gates(0).done.wait()
    #expect(cancelled)
    #expect(store.sheet?.ticks == [])
    #expect(store.sheet?.id == 2)
    #expect(issues.values.isEmpty, "\(issues.values)")
  }
}
