import Clearance

/// A latch the test opens (``Latch``): a task that waits before `open()` is held until then
/// (or until it is cancelled), one that comes after passes at once. The fake servers hold an
/// answer on it instead of sleeping, and the test sees how many are held.
package typealias Gate = Latch

extension Latch {
    /// How many tasks are held now.
    package var heldCount: Int { waitingCount }
}
