/// The secrets `clearance serve` resolved at start. One read from standard input (`--secret -`)
/// can only happen once: a reload (SIGHUP) keeps what was read then, and reads a flag's file or
/// variable again (so a rotated `--secret-file` takes effect).
struct StartSecrets: Sendable {
    /// The app secret resolved at start (from any source), if any.
    let startAppSecret: String?
    /// Whether it came from standard input.
    let fromStandardInput: Bool

    init(appSecret: String?, fromStandardInput: Bool) {
        startAppSecret = appSecret
        self.fromStandardInput = fromStandardInput
    }

    /// The app secret now: at start, or when it came from standard input, the one read at
    /// start; on a reload otherwise, what `rereading` resolves.
    func appSecret(reloading: Bool, rereading: () throws -> String?) throws -> String? {
        reloading && !fromStandardInput ? try rereading() : startAppSecret
    }
}
