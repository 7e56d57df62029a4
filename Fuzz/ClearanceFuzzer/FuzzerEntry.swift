import ClearanceFuzzing
import Foundation

/// Built by `scripts/fuzz` (with `-sanitize=fuzzer,address -D CLEARANCE_LIBFUZZER`), this is
/// libFuzzer's driver for the target named by `CLEARANCE_FUZZ_TARGET`; every libFuzzer flag
/// works. Built normally, it replays inputs without the fuzzer:
/// `ClearanceFuzzer TARGET FILE_OR_DIRECTORY…` (for a crash file `scripts/fuzz` reported).
@main
enum FuzzerEntry {
    nonisolated(unsafe) static var target: FuzzTarget?

    static func main() {
        #if CLEARANCE_LIBFUZZER
        let name = ProcessInfo.processInfo.environment["CLEARANCE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget.named(name) else { usage("set CLEARANCE_FUZZ_TARGET to one of") }
        Self.target = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, testOneInput))
        #else
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget.named(name), arguments.count > 1 else {
            usage("usage: ClearanceFuzzer TARGET FILE_OR_DIRECTORY…, TARGET one of")
        }
        var failures = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                do {
                    try target.run(try Data(contentsOf: file))
                } catch {
                    failures += 1
                    print("\(file.path): \(error)")
                }
            }
        }
        exit(failures == 0 ? 0 : 1)
        #endif
    }

    /// libFuzzer calls this with each input.
    static let testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { bytes, count in
        let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
        guard let target = FuzzerEntry.target else { return -1 }
        do {
            try target.run(data)
        } catch {
            fatalError("\(target.name): \(error)")
        }
        return 0
    }

    static func files(at path: String) -> [URL] {
        let url = URL(fileURLWithPath: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [url] }
        return names.sorted().map { url.appendingPathComponent($0) }
    }

    static func usage(_ message: String) -> Never {
        let targets = FuzzTarget.all.map { "  \($0.name): \($0.summary)" }.joined(separator: "\n")
        FileHandle.standardError.write(Data("\(message):\n\(targets)\n".utf8))
        exit(64)
    }
}

#if CLEARANCE_LIBFUZZER
/// libFuzzer's entry for programs that have their own `main` (SwiftPM gives every executable one).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
