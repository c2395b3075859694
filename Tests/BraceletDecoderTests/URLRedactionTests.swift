import Testing
@testable import BraceletDecoder

/// URLs are shown parsed, never searched and replaced: user info and query values go, the rest
/// stays exactly as given.
@Suite struct URLRedactionTests {
    @Test func userInfoQueryValuesAndFragmentsAreHidden() {
        let cases: [(String, String)] = [
            ("https://ops:pa55@hooks.example.org/in?token=abc", "https://ops:***@hooks.example.org/in?token=***"),
            ("https://TOKEN@hooks.example.org/in", "https://***@hooks.example.org/in"),
            ("http://127.0.0.1:8080/bracelet", "http://127.0.0.1:8080/bracelet"),
            ("http://[::1]:9/x?a=1&b&c=#frag", "http://[::1]:9/x?a=***&***&c=***#***"),
            ("postgresql://gw:s3cr%40t@db.example.org:5432/fleet?sslmode=verify-full&password=other",
             "postgresql://gw:***@db.example.org:5432/fleet?sslmode=verify-full&password=***"),
            ("postgresql://gw:p@h1:5432,h2:5433/fleet?target_session_attrs=read-write&connect_timeout=5",
             "postgresql://gw:***@h1:5432,h2:5433/fleet?target_session_attrs=read-write&connect_timeout=5"),
            // An @ inside the password: the last @ of the authority ends the user info.
            ("postgresql://gw:a@b@db/fleet", "postgresql://gw:***@db/fleet"),
            ("postgres://db/fleet", "postgres://db/fleet"),
            // A ? or # typed inside the password: still the user info (it once showed `pa` as the host).
            ("https://u:pa?ss@h/in?token=t", "https://u:***@h/in?token=***"),
            ("https://u:pa?ss@h", "https://u:***@h"),
            ("https://u:pa#ss@h:8443/in", "https://u:***@h:8443/in"),
            ("https://to?ken@h/in", "https://***@h/in"),
            // A ? in the user name: the whole user info is hidden (the user name may hold the secret).
            ("https://u?x:pw@h/in", "https://***@h/in"),
            // No URL: read as a libpq connection string.
            ("host=db user=gw password=p sslmode=require", "host=*** user=*** password=*** sslmode=require"),
            ("host = db password = 'p q'", "host=*** password=***"),
            ("not a url", "not a url"),
        ]
        for (given, shown) in cases { #expect(URLRedaction.redacted(given) == shown, "\(given)") }
        #expect(URLRedaction.redactingURLs(in: "POST to https://u:pa?ss@h/in failed") == "POST to https://u:***@h/in failed")
    }

    /// The password `p` once turned every `p` of a message into `***` (`***ort`, `acce***ting`):
    /// parsing touches only the URL.
    @Test func textAroundAURLIsLeftAsItIs() {
        let text = "connection to server at \"127.0.0.1\", port 5432 failed: is it accepting connections? postgresql://u:p@127.0.0.1:5432/db"
        #expect(URLRedaction.redactingURLs(in: text)
            == "connection to server at \"127.0.0.1\", port 5432 failed: is it accepting connections? postgresql://u:***@127.0.0.1:5432/db")
        #expect(URLRedaction.redactingURLs(in: "webhook https://u:pw@h/x?t=1") == "webhook https://u:***@h/x?t=***")
        #expect(URLRedaction.redactingURLs(in: "HTTP 500 from (https://u:pw@h/x): boom") == "HTTP 500 from (https://u:***@h/x): boom")
        #expect(URLRedaction.redactingURLs(in: "disk full") == "disk full")
    }
}
