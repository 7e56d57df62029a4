import ClearanceEntitlements
import Foundation

/// What `clearance entitlements download` shows while it downloads, on standard error:
/// - on a terminal, one line rewritten in place (bytes, percent, rate), at most ten times a
///   second and once more at the end;
/// - elsewhere (a pipe, a file, CI), a line each time another 10 % has arrived, or, when the
///   server announced no size, a line every five seconds;
/// - nothing with `--quiet`.
///
/// A value type fed with progress and the time, returning the text to write: the caller writes it.
struct DownloadProgressDisplay {
    enum Style: Equatable {
        case terminal, lines, off

        /// `.terminal` when standard error is a terminal, else `.lines`; `.off` when `quiet`.
        static func standardError(quiet: Bool) -> Style {
            if quiet { return .off }
            return isatty(STDERR_FILENO) != 0 ? .terminal : .lines
        }
    }

    let style: Style
    let product: String
    private let start: ContinuousClock.Instant
    private var lastWritten: ContinuousClock.Instant?
    private var lastTenth = 0
    private var lineOpen = false
    private var widest = 0

    static let redrawInterval = Duration.milliseconds(100)
    static let unknownSizeInterval = Duration.seconds(5)

    init(style: Style, product: String, start: ContinuousClock.Instant = .now) {
        self.style = style
        self.product = product
        self.start = start
    }

    /// The text to write for `progress` at `now`, or nil when nothing is due.
    mutating func update(_ progress: DownloadProgress, now: ContinuousClock.Instant = .now) -> String? {
        switch style {
        case .off:
            return nil
        case .terminal:
            let complete = progress.expectedBytes.map { progress.bytesReceived >= $0 } ?? false
            if let lastWritten, !complete, now - lastWritten < Self.redrawInterval { return nil }
            lastWritten = now
            return redraw(line(progress, now: now))
        case .lines:
            if let expected = progress.expectedBytes, expected > 0 {
                let tenth = Int(min(progress.bytesReceived, expected) * 10 / expected)
                guard tenth > lastTenth else { return nil }
                lastTenth = tenth
                return line(progress, now: now) + "\n"
            }
            guard progress.bytesReceived > 0, now - (lastWritten ?? start) >= Self.unknownSizeInterval else { return nil }
            lastWritten = now
            return line(progress, now: now) + "\n"
        }
    }

    /// The text that ends the display once the download ended (completed or failed): the line
    /// break a terminal line still needs, or the final line of a download of unknown size.
    mutating func finish(_ last: DownloadProgress?, now: ContinuousClock.Instant = .now) -> String? {
        switch style {
        case .off:
            return nil
        case .terminal:
            guard lineOpen else { return nil }
            lineOpen = false
            return "\n"
        case .lines:
            guard let last, last.expectedBytes == nil, last.bytesReceived > 0 else { return nil }
            return line(last, now: now) + "\n"
        }
    }

    /// `issue-1: 1.5 MB of 3.0 MB, 50 %, 12.3 MB/s`.
    func line(_ progress: DownloadProgress, now: ContinuousClock.Instant) -> String {
        let elapsed = max(Self.seconds(now - start), 0.001)
        let rate = Self.bytes(Int64(Double(progress.bytesReceived) / elapsed)) + "/s"
        guard let expected = progress.expectedBytes, expected > 0 else {
            return "\(product): \(Self.bytes(progress.bytesReceived)), \(rate)"
        }
        let percent = min(progress.bytesReceived, expected) * 100 / expected
        return "\(product): \(Self.bytes(progress.bytesReceived)) of \(Self.bytes(expected)), \(percent) %, \(rate)"
    }

    /// Back to the start of the line, the new text, and spaces over what a longer one left.
    private mutating func redraw(_ text: String) -> String {
        let padding = max(0, widest - text.count)
        widest = max(widest, text.count)
        lineOpen = true
        return "\r" + text + String(repeating: " ", count: padding)
    }

    /// Decimal units, as download tools show them: `999 B`, `1.5 kB`, `12.3 MB`, `1.25 GB`.
    static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        switch count {
        case ..<1_000: return "\(count) B"
        case ..<1_000_000: return String(format: "%.1f kB", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.2f GB", value / 1e9)
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
