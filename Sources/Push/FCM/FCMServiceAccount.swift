import JSON
import Primitives

/// The parts of a Google service account key file (JSON) that FCM HTTP v1 needs: the project whose
/// messages are sent, and the account's RSA key and address for the OAuth 2.0 JWT bearer grant.
public struct FCMServiceAccount: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String?
    /// Where the grant is sent (the file's `token_uri`).
    public let tokenURI: String
    let key: RSAPrivateKey

    struct File: Decodable {
        var type: String?
        var project_id: String
        var private_key_id: String?
        var private_key: String
        var client_email: String
        var token_uri: String?
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(json: [UInt8]) throws(Invalid) {
        let file: File
        do { file = try StrictJSON.decode(File.self, from: json) } catch {
            throw Invalid(description: "not a service account key file (JSON with project_id, private_key, client_email)")
        }
        guard file.type == nil || file.type == "service_account" else { throw Invalid(description: "type is not service_account") }
        guard !file.project_id.isEmpty, file.project_id.utf8.count <= 64,
              file.project_id.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d })
        else { throw Invalid(description: "project_id must be a project id (a-z, 0-9, -)") }
        do { key = try RSAPrivateKey(pem: Array(file.private_key.utf8)) } catch {
            throw Invalid(description: "private_key is not an unencrypted RSA key of 2048 bits or more")
        }
        projectID = file.project_id
        clientEmail = file.client_email
        privateKeyID = file.private_key_id
        tokenURI = file.token_uri ?? "https://oauth2.googleapis.com/token"
    }
}
