import Clearance
import Foundation

/// A development server's clock that a test in another process can move: the machine's date
/// plus the number of seconds a file holds (`CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE` of
/// `clearance serve --development`), read again at each use. A test writes `3600` to the file
/// (atomically: write elsewhere, then rename) and the server's tokens are an hour older, with no
/// waiting. For development and tests only: production mode never reads it.
public final class DevelopmentClockFile: Sendable {
    /// Why a clock file cannot be used.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The file.
    public let path: String
    /// The last offset read (a file being replaced keeps the one before until it is whole).
    private let lastOffset: Locked<TimeInterval>

    /// A clock on `path`, which must hold a number of seconds (finite, at most ten years either way).
    /// - Throws: ``Failure`` naming the file when it cannot be read or holds something else.
    public init(path: String) throws {
        self.path = path
        lastOffset = Locked(0)
        guard let offset = Self.read(path) else {
            throw Failure(description: "the clock offset file \(path) cannot be read or does not hold a number of seconds (such as 0 or 3600)")
        }
        lastOffset.withLock { $0 = offset }
    }

    /// The machine's date plus the file's seconds (the last good ones, if it cannot be read now).
    public func now() -> Date {
        let offset = Self.read(path).map { read in lastOffset.withLock { $0 = read; return read } } ?? lastOffset.withLock { $0 }
        return Date().addingTimeInterval(offset)
    }

    private static func read(_ path: String) -> TimeInterval? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64,
              let seconds = TimeInterval(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              seconds.isFinite, abs(seconds) <= 10 * 366 * 86_400 else { return nil }
        return seconds
    }
}
