import CCurl
import CShims

/// What one user's HTTP traffic cost on the wire, as a load tool reports it (k6's data_sent,
/// data_received, http_req_connecting): bytes each way with headers, the connections opened and
/// the requests that reused one, and the time each new connection took to connect. Counted per
/// transfer from curl's own figures, whatever became of the transfer: a cancelled request was
/// still sent, and a connection it opened was still opened.
struct WireTotals: Sendable, Equatable {
    /// Request bytes sent (request line and headers: curl's CURLINFO_REQUEST_SIZE).
    var bytesSent = 0
    /// Response bytes received: headers (CURLINFO_HEADER_SIZE) and body.
    var bytesReceived = 0
    /// New connections made (CURLINFO_NUM_CONNECTS over every transfer).
    var connectionsOpened = 0
    /// Requests sent on a connection an earlier request had opened.
    var connectionsReused = 0
    /// TCP connect time of each new connection (name lookup excluded, as k6's).
    var connect = LatencyHistogram()
    /// TLS handshake time of each new HTTPS connection (k6's http_req_tls_handshaking).
    var tlsHandshake = LatencyHistogram()
}

/// One user's `WireTotals`, written by the transfers of its transport (a blocking transport's
/// workers at once, hence the lock: one uncontended lock per request) and read when its run ends.
final class WireLedger: Sendable {
    private let totals = Locked(WireTotals())

    var snapshot: WireTotals { totals.withLockedValue { $0 } }

    /// A transfer that is over, read from its handle before the handle is reused. `body`: the body
    /// bytes it received. Returns the transfer's own connection facts (requests.csv).
    @discardableResult
    func record(handle: UnsafeMutableRawPointer, body: Int) -> ConnectionFacts {
        var sent = 0, headers = 0, connects = 0, version = 0
        var connectedAt: curl_off_t = 0, resolvedAt: curl_off_t = 0, handshakenAt: curl_off_t = 0
        ib_curl_easy_get_long(handle, CURLINFO_REQUEST_SIZE, &sent)
        ib_curl_easy_get_long(handle, CURLINFO_HEADER_SIZE, &headers)
        ib_curl_easy_get_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        ib_curl_easy_get_long(handle, CURLINFO_HTTP_VERSION, &version)
        if connects > 0 {
            ib_curl_easy_get_offset(handle, CURLINFO_CONNECT_TIME_T, &connectedAt)
            ib_curl_easy_get_offset(handle, CURLINFO_NAMELOOKUP_TIME_T, &resolvedAt)
            ib_curl_easy_get_offset(handle, CURLINFO_APPCONNECT_TIME_T, &handshakenAt)
        }
        // curl's figures are its own counts, but a long is wide: keep a hostile value in range.
        let (sentBytes, headerBytes, opened) = (max(0, sent), max(0, headers), max(0, connects))
        var facts = ConnectionFacts(protocolVersion: HTTPVersion.negotiated(version), opened: opened > 0)
        facts.connect = UInt64(max(0, connectedAt - resolvedAt)) &* 1_000
        // APPCONNECT is 0 in clear text: no handshake, not a negative one.
        facts.tlsHandshake = handshakenAt > 0 ? UInt64(max(0, handshakenAt - connectedAt)) &* 1_000 : 0
        totals.withLockedValue { totals in
            totals.bytesSent &+= sentBytes
            totals.bytesReceived &+= headerBytes &+ max(0, body)
            totals.connectionsOpened &+= opened
            // A request that went out without a connection of its own reused one.
            if opened == 0 && sentBytes > 0 { totals.connectionsReused += 1 }
            if opened > 0 { totals.connect.record(nanoseconds: facts.connect) }
            if opened > 0 && handshakenAt > 0 { totals.tlsHandshake.record(nanoseconds: facts.tlsHandshake) }
        }
        return facts
    }

    /// A modelled transfer (`--time virtual`): a connection opened (with its modelled TCP and
    /// TLS handshakes, ns; 0: clear text) or reused, and its body bytes.
    func recordModelled(opened: Bool, body: Int, connect: UInt64, tlsHandshake: UInt64) {
        totals.withLockedValue { totals in
            totals.bytesReceived &+= max(0, body)
            guard opened else { return totals.connectionsReused += 1 }
            totals.connectionsOpened += 1
            totals.connect.record(nanoseconds: connect)
            if tlsHandshake > 0 { totals.tlsHandshake.record(nanoseconds: tlsHandshake) }
        }
    }
}
