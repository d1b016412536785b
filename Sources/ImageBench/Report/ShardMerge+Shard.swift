import Foundation

extension ShardMerge {
    /// One run of a cell: what the shards' files are joined by (not the label tables print).
    struct RunKey: Hashable {
        let cell: ResultCell
        let repetition: Int
    }

    /// One shard's results directory, read back by the readers beside its writers: its users'
    /// summaries, its histograms and timelines, its requests.
    struct Shard {
        let directory: String
        let clients: [ClientsCSV.Row]
        /// histograms.json's runs, each with the run it belongs to.
        let histograms: [(key: RunKey, run: HistogramsJSON.Run)]
        let requests: [RequestsCSV.Row]
        /// requests.csv as the shard wrote it ("" without one): the merged file keeps every
        /// column as measured, including those no reader here knows.
        let requestsText: String

        /// `varied`: the policies the shards' plan varies, which tell its cells apart.
        init(_ directory: String, varied: [PolicyDimension]) throws(MergeError) {
            let url = URL(fileURLWithPath: directory)
            let clientsText: String, runs: [HistogramsJSON.Run]
            do {
                clientsText = try String(contentsOf: url.appendingPathComponent(ClientsCSV.fileName), encoding: .utf8)
                runs = try HistogramsJSON.read(url)
            } catch {
                throw MergeError(description: "\(directory): not an imgbench results directory with \(ClientsCSV.fileName) and \(HistogramsJSON.fileName)")
            }
            do {
                clients = try ClientsCSV.read(clientsText, varied: varied)
            } catch {
                throw MergeError(description: "\(directory)/\(error.description)")
            }
            histograms = runs.map { (RunKey(cell: $0.cell(varied: varied), repetition: $0.repetition), $0) }
            requestsText = (try? String(contentsOf: url.appendingPathComponent(RequestsCSV.fileName), encoding: .utf8)) ?? ""
            requests = RequestsCSV.read(requestsText, varied: varied)
            self.directory = directory
        }
    }
}
