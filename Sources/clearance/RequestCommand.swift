import ArgumentParser
import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import Foundation
import HTTPTypes

/// `clearance request`: a small curl that follows Clearance's credential rules and redacts every secret it prints.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send one authorized HTTP request and print the status, headers and body with secrets redacted.",
        discussion: """
            Redirects are followed; a credential never follows one to another origin, and is never \
            sent over plain http except to loopback (unless --allow-insecure-http).
            """
    )

    @Argument(help: "The HTTP method (GET, POST, …).") var method: String
    @Argument(help: "The absolute URL.") var url: String
    @Option(help: "An API key, sent as `Authorization: Token <key>`; - reads it from standard input. Also --token-file or CLEARANCE_TOKEN.") var token: String?
    @Option(help: "A file holding the API key.") var tokenFile: String?
    @Option(help: "A bearer token, sent as `Authorization: Bearer <token>`; - reads it from standard input. Also --bearer-file or CLEARANCE_BEARER.") var bearer: String?
    @Option(help: "A file holding the bearer token.") var bearerFile: String?
    @Option(help: "HTTP Basic credentials as user:password; - reads them from standard input. Also --basic-file or CLEARANCE_BASIC.") var basic: String?
    @Option(help: "A file holding the HTTP Basic user:password.") var basicFile: String?
    @Option(help: "The request body.") var data: String?
    @Option(name: .customLong("header"), help: "An extra header, 'Name: value' (repeatable).") var headers: [String] = []
    @Option(help: "The transport: ahc (AsyncHTTPClient) or urlsession.") var transport: TransportChoice = .ahc
    @Option(help: TimeoutOption.help) var timeout: Double?
    @Flag(help: "Allow the credential over plain http to any host.") var allowInsecureHTTP = false
    @Flag(help: "Authorize with the OAuth2 session stored by `clearance login` (refreshed as needed).") var session = false
    @OptionGroup var storeOptions: SessionCommand.StoreOptions

    enum TransportChoice: String, ExpressibleByArgument, CaseIterable { case ahc, urlsession }

    func validate() throws {
        if [token ?? tokenFile, bearer ?? bearerFile, basic ?? basicFile].compactMap({ $0 }).count + (session ? 1 : 0) > 1 {
            throw ValidationError("Give at most one of --token, --bearer, --basic (or their -file forms) and --session.")
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https"].contains(scheme.lowercased()), parsed.host != nil else {
            throw ValidationError("'\(Redactor.scrub(url))' is not an absolute http(s) URL.")
        }
        guard HTTPRequest.Method(method.uppercased()) != nil else { throw ValidationError("'\(method)' is not an HTTP method.") }
        try TimeoutOption.validate(timeout)
    }

    func run() async throws {
        let credential: Credential?
        let (token, bearer, basic) = try credentialSecrets()
        if let token { credential = .apiKey(token) }
        else if let bearer { credential = .bearer(bearer) }
        else if let basic {
            let parts = basic.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw ValidationError("--basic takes user:password.") }
            credential = try Credential.basic(user: String(parts[0]), password: String(parts[1]))
        } else { credential = nil }

        var fields = HTTPFields()
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = HTTPField.Name(String(parts[0]).trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("'\(header)' is not a 'Name: value' header.")
            }
            fields.append(HTTPField(name: name, value: String(parts[1]).trimmingCharacters(in: .whitespaces)))
        }
        if data != nil && fields[.contentType] == nil { fields[.contentType] = "application/json" }

        let deadline = TimeoutOption.duration(timeout)
        let httpTransport: any HTTPTransport = transport == .ahc
            ? AsyncHTTPClientHTTPTransport.shared.withTimeout(deadline)
            : URLSessionHTTPTransport(timeout: deadline)
        var sources: [String: any CredentialSource] = credential.map { ["cli": StaticCredentialSource($0, name: "cli")] } ?? [:]
        if session { sources["cli"] = try await storeOptions.makeSession(allowInsecureHTTP: allowInsecureHTTP, transport: TimeoutOption.transport(timeout)) }
        let authorizer = try RequestAuthorizer(
            policy: sources.isEmpty ? AuthorizationPolicy() : .always("cli"), sources: sources,
            transportSecurity: TransportSecurity(allowsInsecureHTTP: allowInsecureHTTP))
        let client = AuthorizedClient(authorizer: authorizer, transport: httpTransport)
        let request = HTTPRequest(method: HTTPRequest.Method(method.uppercased())!, url: URL(string: url)!, headerFields: fields)
        do {
            let (response, body) = try await client.send(request, body: data.map { Data($0.utf8) })
            print("HTTP \(response.status.code) \(response.status.reasonPhrase)")
            for field in response.headerFields { print("\(field.name): \(Self.redactedValue(field))") }
            print("")
            print(Redactor.scrub(String(decoding: body, as: UTF8.self)))
        } catch {
            if let timeout = TransportError.timeout(in: error) { throw CommandFailure.exitCode(timeout) }
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(error.code == .unauthorized || error.code == .forbidden ? 2 : 1)
        }
    }

    static func redactedValue(_ field: HTTPField) -> String {
        let secretHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie, .setCookie]
        if secretHeaders.contains(field.name) || Redactor.secretNames.contains(field.name.canonicalName.lowercased()) {
            return Redactor.mask
        }
        return Redactor.scrub(field.value)
    }

    /// The one credential given by option, by file, or (when neither is given, nor --session)
    /// by the first of CLEARANCE_TOKEN, CLEARANCE_BEARER and CLEARANCE_BASIC that is set.
    private func credentialSecrets() throws -> (token: String?, bearer: String?, basic: String?) {
        let inputs = [
            (SecretInput(flag: "--token", environment: "CLEARANCE_TOKEN"), token, tokenFile),
            (SecretInput(flag: "--bearer", environment: "CLEARANCE_BEARER"), bearer, bearerFile),
            (SecretInput(flag: "--basic", environment: "CLEARANCE_BASIC"), basic, basicFile),
        ]
        var given = try inputs.map { try $0.0.resolve(value: $0.1, file: $0.2, useEnvironment: false) }
        if !session, given.allSatisfy({ $0 == nil }), let index = inputs.firstIndex(where: { $0.0.environmentValue != nil }) {
            given[index] = inputs[index].0.environmentValue
        }
        return (given[0], given[1], given[2])
    }
}
