import Prometheus

/// The live metrics' names, help texts and buckets, in one place for the README to match.
/// Computed: swift-prometheus's descriptor is not `Sendable`, so it cannot be a stored static.
enum LiveMetricNames {
    static var requests: MetricNameDescriptor {
        descriptor("http_requests", "total", "HTTP requests sent (every attempt), by status: the HTTP status of a failure, its class where no status came (timeout, connection, too_large), 2xx for a success, cancelled for one cut by a cancel; sums to summary.csv's http_requests")
    }
    static var bytes: MetricNameDescriptor {
        descriptor("bytes_received", "total", "Body bytes received from the network, complete or not (summary.csv's bytes_downloaded)")
    }
    static var errors: MetricNameDescriptor {
        descriptor("errors", "total", "Loads that failed, by class (summary.csv's errors_<class>)")
    }
    static var duration: MetricNameDescriptor {
        descriptor("http_request_duration", "seconds", "Fetch time of each network load, from its request to its last byte or its failure or cut, its retries included (one observation per load)")
    }
    static var timeToFirstByte: MetricNameDescriptor {
        descriptor("time_to_first_byte", "seconds", "Time to first byte of each network load (one that failed or was cut before any byte: its whole fetch)")
    }
    static var activeUsers: MetricNameDescriptor {
        descriptor("active_users", "", "Simulated users scrolling now")
    }

    /// The `status` of a request that succeeded, and of one cut by a cancel.
    static let succeeded = "2xx", cancelled = "cancelled"

    /// Seconds, from a loopback answer to a stalled transfer near the default 10 s timeout.
    static let buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private static func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "imgbench", metricName: name, unitName: unit, helpText: help)
    }
}
