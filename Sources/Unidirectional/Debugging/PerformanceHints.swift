import Synchronization

/// Hints, in debug builds, that a store's observers do work in proportion to the rows of a
/// collection for changes that do not concern them.
///
/// A store prints a hint to standard error when, after each of three actions (not necessarily
/// consecutive), at least 64 of its observers re-ran or re-evaluated a read and at least 90% of
/// them found their value unchanged. Two shapes are recognized:
///
/// - Observers that read a whole collection to use one element of it, such as
///   `store.rows[id: id]?.value`: every one of them re-runs whenever any element changes. The
///   hint fires when at most a tenth as many elements changed as observers re-ran (assuming each
///   observer uses one element).
/// - Observers that read through a key path that is not a chain of stored properties, such as
///   `store[\.rows[id: id]?.value]`: every such key path is evaluated again after every action,
///   and the hint counts the observers whose re-evaluation found nothing changed.
///
/// The hint gives those counts and names the form to write instead:
/// `store[\.rows, id: id, \.field]`, or a row store (`store.scope(state: \.rows, id: id, …)`).
/// Each store prints it at most once per shape: per key path of the collection that re-ran its
/// observers, and once for its key-path re-evaluations.
///
/// A hint is not a ``StoreIssue``: it never reaches the store's `onIssue` handler and never
/// fails a test. Release builds (compiled without `DEBUG`) neither count nor print anything.
public enum PerformanceHints {
  private static let enabled = Atomic<Bool>(true)

  /// Whether stores print performance hints (debug builds only). `true` by default; set it to
  /// `false`, for the whole process, to silence them.
  public static var isEnabled: Bool {
    get { enabled.load(ordering: .relaxed) }
    set { enabled.store(newValue, ordering: .relaxed) }
  }
}

// Debug builds only: release builds hold none of the counting code, not even unused.
#if DEBUG
  /// One store's count of the actions that qualify for a performance hint, by shape, and the
  /// shapes already reported. A value: the graph feeds it and prints what it returns.
  struct PerformanceHintCounter {
    /// The fewest observers that re-ran or re-evaluated for one action for it to count.
    static let minimumObservers = 64
    /// The number of qualifying actions (not necessarily consecutive) after which a shape is
    /// reported.
    static let minimumActions = 3

    /// What did the work: the re-runs caused by one collection's key path, or the store's
    /// re-evaluations of key paths that are not chains of stored properties.
    enum Shape: Hashable {
      case rerun(AnyKeyPath)
      case reevaluation
    }

    private var actions: [Shape: Int] = [:]
    private var reported: Set<Shape> = []

    /// Whether an action after which `observers` observers did work and `unchanged` of them found
    /// nothing changed qualifies: at least 64 observers, at least 90% unchanged.
    static func qualifies(observers: Int, unchanged: Int) -> Bool {
      observers >= minimumObservers && unchanged * 10 >= observers * 9
    }

    /// Counts one action's work of `shape`; returns the number of qualifying actions if the shape
    /// is due to be reported now (once per shape), `nil` otherwise.
    mutating func note(_ shape: Shape, observers: Int, unchanged: Int) -> Int? {
      guard Self.qualifies(observers: observers, unchanged: unchanged),
        !reported.contains(shape)
      else { return nil }
      let count = actions[shape, default: 0] + 1
      guard count >= Self.minimumActions else {
        actions[shape] = count
        return nil
      }
      actions[shape] = nil
      reported.insert(shape)
      return count
    }

    /// The hint for observers that re-ran because the collection at `keyPath` changed.
    static func rerunHint(
      keyPath: AnyKeyPath, observers: Int, unchanged: Int, changes: ElementChanges, actions: Int
    ) -> String {
      let name = collectionName(in: keyPath, last: true)
      return """
        Unidirectional performance hint: for \(actions) actions, most observers of one store \
        re-ran for changes they do not use. After the last, \(observers) observers re-ran because \
        \(keyPath) changed, yet only \(changes.changed) of its \(changes.count) elements changed, \
        so at least \(unchanged) of them found their element unchanged: each reads the whole \
        collection (such as `store.\(name)[id: id]?.value`) to use one element. \
        \(remedy(name: name, only: "run")) Printed once per store and key path.

        """
    }

    /// The hint for observers that re-evaluated key paths that are not chains of stored
    /// properties.
    static func reevaluationHint(
      example: AnyKeyPath?, observers: Int, unchanged: Int, actions: Int
    ) -> String {
      let name = example.map { collectionName(in: $0) } ?? "rows"
      let oneOfThem = example.map { " (one of them: \($0))" } ?? ""
      return """
        Unidirectional performance hint: for \(actions) actions, most observers of one store \
        re-evaluated reads that had not changed. After the last, \(observers) observers \
        re-evaluated key paths that are not chains of stored properties\(oneOfThem), and \
        \(unchanged) of them found theirs unchanged: such a key path (such as \
        `store[\\.\(name)[id: id]?.value]`) is evaluated again after every action. \
        \(remedy(name: name, only: "are checked")) Printed once per store.

        """
    }

    /// The forms to use instead, and how to silence the hint.
    private static func remedy(name: String, only: String) -> String {
      """
      Read one element with `store[\\.\(name), id: id, \\.field]`, or give each row its own \
      store (`store.scope(state: \\.\(name), id: id, action: …)`): then only the observers of \
      a changed row \(only). In debug builds only; silence it with \
      `PerformanceHints.isEnabled = false`.
      """
    }

    /// The name of a property `keyPath` goes through, as the runtime describes it: the last (the
    /// collection, for a chain of stored properties such as `\State.list.rows`), or the first
    /// after the root type (`rows` for `\State.rows[id: 3]?.value`); `rows` if the description
    /// does not tell.
    static func collectionName(in keyPath: AnyKeyPath, last: Bool = false) -> String {
      let description = String(describing: keyPath)
      let components = description.split(separator: ".")
      guard description.hasPrefix("\\"), components.count >= 2 else { return "rows" }
      let name = (last ? components[components.count - 1] : components[1]).prefix {
        $0.isLetter || $0.isNumber || $0 == "_"
      }
      return name.isEmpty ? "rows" : String(name)
    }
  }

  /// How many elements of a collection changed between two values, and how many the new one has.
  struct ElementChanges: Equatable {
    var changed: Int
    var count: Int
  }

  /// A collection of `Equatable` elements, which a debug build compares element by element to
  /// tell a change of a few elements from a change of all (see ``PerformanceHints``).
  protocol ElementwiseComparable {
    /// The changes from `self` to `new`, a value of the same type; `nil` if it is not one.
    func elementChanges(to new: Any) -> ElementChanges?
  }

  extension ElementwiseComparable where Self: Collection, Element: Equatable {
    func elementChanges(to new: Any) -> ElementChanges? {
      guard let new = new as? Self else { return nil }
      // Pairwise, in order: an element inserted or removed shifts the ones after it, which then
      // count as changed too (a change of many elements, which the hint ignores).
      let changed = zip(self, new).count { $0 != $1 } + abs(count - new.count)
      return ElementChanges(changed: changed, count: new.count)
    }
  }

  extension Array: ElementwiseComparable where Element: Equatable {}
  extension ContiguousArray: ElementwiseComparable where Element: Equatable {}
  extension IdentifiedArray: ElementwiseComparable where Element: Equatable {}
#endif
