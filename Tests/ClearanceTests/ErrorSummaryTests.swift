import Clearance
import ClearanceTesting
import Testing

/// `ErrorSummary`: a case's code and message side by side, the message built only when read.
@Suite struct ErrorSummaryTests {
    /// An error written the way every Clearance module writes its errors.
    enum ProbeError: ClearanceError {
        case plain
        case counted(Counter)  // counts the messages built

        static let codeDomain = "probe"

        var summary: ErrorSummary<Code> {
            switch self {
            case .plain: .init(.plain, "A plain failure (\(qualifiedCode)).")
            case .counted(let counter): .init(.counted, { _ = counter.increment(); return "counted" }())
            }
        }

        enum Code: String, Sendable, CaseIterable { case plain, counted }
    }

    @Test func codeAndMessageComeFromTheSummary() {
        let error = ProbeError.plain
        #expect(error.code == .plain)
        #expect(error.qualifiedCode == "probe.plain")
        #expect(error.message == "A plain failure (probe.plain).")  // a message may mention its own code
        #expect(error.description == "probe.plain: A plain failure (probe.plain).")
        #expect(error.errorDescription == error.message)
    }

    @Test func readingTheCodeDoesNotBuildTheMessage() {
        let counter = Counter()
        let error = ProbeError.counted(counter)
        #expect(error.code == .counted)
        #expect(error.qualifiedCode == "probe.counted")
        #expect(counter.value == 0)
        #expect(error.message == "counted")
        #expect(counter.value == 1)
    }
}
