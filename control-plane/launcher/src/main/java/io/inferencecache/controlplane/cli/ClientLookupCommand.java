package io.inferencecache.controlplane.cli;

import com.google.protobuf.ByteString;
import io.inferencecache.controlplane.client.ChainArgs;
import io.inferencecache.controlplane.client.ClientConnection;
import io.inferencecache.controlplane.client.ClientFailure;
import io.inferencecache.controlplane.client.ClientLogging;
import io.inferencecache.controlplane.client.LookupOutput;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.SLO;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code client lookup}: one LookupRoute, as a gateway would call it, printed as a table (the
 * reason code, then the ranked replicas) or as JSON. Any answer, a miss included, exits 0: reading
 * it is the point.
 */
@Command(
    name = "lookup",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Ask for a routing hint (LookupRoute) for a block-hash chain or for token ids.",
      "Prints the reason code, then the ranked replicas (RANK REPLICA MATCHED_TOKENS SCORE);"
          + " -o json prints the whole response."
    })
public final class ClientLookupCommand implements Callable<Integer>, OwnsUsageErrors {
  private static final String NAME = "client lookup";

  @Spec private CommandSpec spec;
  @Mixin ClientOptions options;

  @Option(
      names = "--token-ids",
      paramLabel = "T1,T2,...",
      description =
          "Token ids instead of --blocks, fingerprinted by the server at the engine block size"
              + " it was started with (16 by default).")
  String tokenIds;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      description =
          "Deadline of the LookupRoute call as a gateway would set it, Go duration; the"
              + " connection is made first (default: --timeout).")
  String deadline;

  @Option(
      names = "--slo-ttft-ms",
      paramLabel = "MS",
      description = "Time-to-first-token target; below the server's tight bound it biases scores.")
  int sloTtftMs;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "table or json (default ${DEFAULT-VALUE}).")
  String output = "table";

  @Override
  public Integer call() {
    ClientLogging.warningsToStderr();
    final LookupRouteRequest request;
    final LookupOutput format;
    final Duration callDeadline;
    final ClientConnection connection;
    try {
      request = request();
      format = LookupOutput.parse(output);
      callDeadline = deadline();
      connection = options.connection();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    final LookupRouteResponse response;
    try (ClientConnection c = connection) {
      if (callDeadline != null) {
        c.connect();
      }
      response = c.lookup(request, callDeadline);
    } catch (ClientFailure e) {
      return ClientCommand.failure(NAME, e.getMessage(), spec.commandLine().getErr());
    }
    final PrintWriter out = spec.commandLine().getOut();
    out.print(format.render(response));
    out.flush();
    return 0;
  }

  /** The request the flags describe. */
  LookupRouteRequest request() {
    options.checkScope();
    options.timeout();
    final LookupRouteRequest.Builder q =
        LookupRouteRequest.newBuilder()
            .setTenantId(options.tenant)
            .setModelId(options.model)
            .setHashScheme(options.hashScheme)
            .setAdapterId(options.adapter);
    if (options.blocks != null && tokenIds != null) {
      throw new IllegalArgumentException("give --blocks or --token-ids, not both");
    }
    if (tokenIds != null) {
      if (options.blockTokens != null || options.tokensPerBlock != null) {
        throw new IllegalArgumentException(
            "--block-tokens and --tokens-per-block go with --blocks: the server cuts --token-ids"
                + " into blocks of its own size");
      }
      for (final int t : ChainArgs.tokenIds("--token-ids", tokenIds)) {
        q.addTokenIds(t);
      }
    } else if (options.blocks != null) {
      final List<ByteString> hashes = options.blockHashes();
      q.addAllBlockHashes(hashes).addAllBlockTokenCounts(options.blockTokenCounts(hashes.size()));
    } else {
      throw new IllegalArgumentException("nothing to look up: give --blocks or --token-ids");
    }
    if (sloTtftMs < 0) {
      throw new IllegalArgumentException("--slo-ttft-ms " + sloTtftMs + " must not be negative");
    }
    if (sloTtftMs > 0) {
      q.setSlo(SLO.newBuilder().setTtftMs(sloTtftMs));
    }
    return q.build();
  }

  private Duration deadline() {
    return deadline == null ? null : ClientOptions.positiveDuration("--deadline", deadline, "25ms");
  }

  @Override
  public int usageError(final String message, final PrintWriter err) {
    return ClientCommand.usage(NAME, message, err);
  }
}
