import Clearance
import ClearanceWire
import ClearanceHTTP
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Logging

/// The authorization server as the client sees it: its endpoints, the client's identity, and
/// how requests reach it. Grants use it to ask for tokens; the session uses it to refresh and
/// revoke.
///
/// Every request is a form `POST` with the client's authentication, sent only over HTTPS (or
/// plain HTTP to loopback, unless ``transportSecurity`` allows more), with `Accept: application/json`.
/// Nothing secret is ever logged: not the body, not the `Authorization` header, not the response.
public struct AuthorizationServer: Sendable {
    /// The endpoints.
    public var endpoints: OAuth2Endpoints
    /// The client's identity.
    public var client: OAuth2Client
    /// The scopes requested when a grant names none.
    public var scopes: [String]
    /// How requests are sent.
    public var transport: any HTTPTransport
    /// Where client secrets and passwords may be sent.
    public var transportSecurity: TransportSecurity
    /// The clock (device polling and revocation retries sleep on it).
    public var clock: any OAuth2Clock
    /// The scheme the tokens are sent with: a token whose `token_type` is neither `Bearer` (any
    /// case, RFC 6749 §7.1) nor this scheme is refused with ``OAuth2Error/badResponse(_:reason:)``.
    public var tokenScheme: String
    /// Where request summaries go (never a secret).
    public var logger: Logger

    public init(
        endpoints: OAuth2Endpoints,
        client: OAuth2Client,
        scopes: [String] = [],
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        clock: any OAuth2Clock = SystemOAuth2Clock(),
        tokenScheme: String = "Bearer",
        logger: Logger = Logger(label: "clearance.oauth2")
    ) {
        self.tokenScheme = tokenScheme
        self.endpoints = endpoints
        self.client = client
        self.scopes = scopes
        self.transport = transport
        self.transportSecurity = transportSecurity
        self.clock = clock
        self.logger = logger
    }

    /// Sends a token request (RFC 6749 §4, §6) with `fields` plus the client's authentication.
    ///
    /// - Parameters:
    ///   - fields: The grant's form fields, `grant_type` first.
    ///   - secretFieldNames: Fields whose values are secret beyond `Redactor.secretNames` (masked in errors).
    /// - Throws: ``OAuth2Error`` (a server `error` even with HTTP 200, a 5xx, a network failure, …).
    public func requestToken(_ fields: [(name: String, value: String)], secretFieldNames: Set<String> = []) async throws(OAuth2Error) -> TokenResponse {
        let grantType = fields.first { $0.name == "grant_type" }?.value ?? "?"
        let (response, body, requestSecrets) = try await post(to: endpoints.token, fields: fields, purpose: "token request", grantType: grantType)
        let secrets = requestSecrets + fields.filter { secretFieldNames.contains($0.name) }.map(\.value)
        do {
            let parsed = try TokenResponse.parse(response, body: body, secrets: secrets, scheme: tokenScheme)
            logger.debug("token issued", metadata: [
                "grant_type": "\(grantType)", "status": "\(response.status.code)",
                "expires_in": "\(parsed.expiresIn.map { OAuth2Error.seconds($0) } ?? "unknown")",
                "refresh_token": "\(parsed.refreshToken == nil ? "absent" : "present")",
            ])
            return parsed
        } catch {
            logger.debug("token request failed", metadata: ["grant_type": "\(grantType)", "status": "\(response.status.code)", "code": "\(error.qualifiedCode)"])
            throw error
        }
    }

    /// Starts the device flow (RFC 8628 §3.1–3.2).
    /// - Throws: ``OAuth2Error/misconfigured(reason:)`` without a device authorization endpoint.
    public func requestDeviceAuthorization(scopes: [String]? = nil) async throws(OAuth2Error) -> DeviceAuthorization {
        guard let url = endpoints.deviceAuthorization else {
            throw .misconfigured(reason: "the device grant needs a device authorization endpoint")
        }
        var fields: [(name: String, value: String)] = []
        let scope = (scopes ?? self.scopes).joined(separator: " ")
        if !scope.isEmpty { fields.append(("scope", scope)) }
        let (response, body, secrets) = try await post(to: url, fields: fields, purpose: "device authorization request", grantType: nil)
        return try DeviceAuthorization.parse(response, body: body, receivedAt: clock.uptime, secrets: secrets)
    }

    /// Revokes `token` (RFC 7009 §2.1). A 503 with a `Retry-After` of at most `retryLimit` is retried once.
    ///
    /// - Parameters:
    ///   - token: The refresh or access token to revoke.
    ///   - hint: `refresh_token` or `access_token`.
    ///   - retryLimit: The longest `Retry-After` waited for before the one retry.
    /// - Throws: ``OAuth2Error/misconfigured(reason:)`` without a revocation endpoint, or the server's error.
    public func revoke(_ token: String, hint: String, retryLimit: Duration = .seconds(5)) async throws(OAuth2Error) {
        guard let url = endpoints.revocation else {
            throw .misconfigured(reason: "no revocation endpoint is configured")
        }
        let fields: [(name: String, value: String)] = [("token", token), ("token_type_hint", hint)]
        var retried = false
        while true {
            let (response, body, secrets) = try await post(to: url, fields: fields, purpose: "revocation", grantType: nil)
            do {
                _ = try OAuth2ResponseBody.object(response, body: body, secrets: secrets)
                logger.debug("token revoked", metadata: ["token_type_hint": "\(hint)", "status": "\(response.status.code)"])
                return
            } catch {
                if !retried, case .serverUnavailable(let answer) = error, answer.status == 503, let retryAfter = answer.retryAfter, retryAfter <= retryLimit {
                    retried = true
                    logger.debug("revocation endpoint unavailable; retrying once", metadata: ["retry_after": "\(OAuth2Error.seconds(retryAfter))"])
                    do { try await clock.sleep(for: retryAfter) } catch { throw .cancelled }
                    continue
                }
                logger.debug("revocation failed", metadata: ["status": "\(response.status.code)", "code": "\(error.qualifiedCode)"])
                throw error
            }
        }
    }

    /// Posts a form with the client's authentication; returns the response, its body, and the
    /// request's secrets (for masking them in errors).
    func post(to url: URL, fields: [(name: String, value: String)], purpose: String, grantType: String?) async throws(OAuth2Error) -> (HTTPResponse, Data, [String]) {
        var request = HTTPRequest(method: .post, url: url)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        do {
            try transportSecurity.check(request)
        } catch {
            throw .misconfigured(reason: error.message)
        }
        var body = fields
        try client.authenticate(&request, fields: &body)
        let secrets = Self.secrets(in: body) + (client.secret.map { [$0] } ?? [])
        var metadata: Logger.Metadata = [
            "endpoint": "\(url.scheme ?? "")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\(url.path)",
            "client_auth": "\(client.authentication.rawValue)",
        ]
        if let grantType { metadata["grant_type"] = "\(grantType)" }
        logger.trace("sending \(purpose)", metadata: metadata)
        if Task.isCancelled { throw .cancelled }
        do {
            let (response, data) = try await transport.send(request, body: Data(FormFields.encode(body).utf8))
            logger.trace("\(purpose) answered", metadata: metadata.merging(["status": "\(response.status.code)"]) { $1 })
            return (response, data, secrets)
        } catch {
            let failure = OAuth2Error(wrappingTransportError: error)
            logger.debug("\(purpose) did not reach the server", metadata: metadata.merging(["code": "\(failure.qualifiedCode)"]) { $1 })
            throw failure
        }
    }

    static func secrets(in fields: [(name: String, value: String)]) -> [String] {
        fields.filter { Redactor.secretNames.contains($0.name.lowercased()) }.map(\.value)
    }
}
