import ClearanceSigning
import Testing

/// The README's signing snippet, compiled and run. Keep the two in step.
@Suite("README signing example")
struct ReadmeSigningExampleTests {
    @Test func presenceAuthorization() throws {
        // snippet: begin
        let signer = try ChannelAuthSigner(key: "app-key", secret: "app-secret")
        let auth = try signer.authorizeChannel(socketID: "123.456", channelName: "presence-room",
                                               channelData: #"{"user_id":"alice"}"#)
        print(auth.jsonString)            // {"auth":"app-key:…","channel_data":"{\"user_id\":\"alice\"}"}
        // snippet: end
        #expect(auth.jsonString.hasPrefix(#"{"auth":"app-key:"#))
        #expect(auth.jsonString.hasSuffix(#""channel_data":"{\"user_id\":\"alice\"}"}"#))
        #expect(signer.verifyChannelAuth(auth: auth.auth, socketID: "123.456", channelName: "presence-room", channelData: #"{"user_id":"alice"}"#))
    }
}
