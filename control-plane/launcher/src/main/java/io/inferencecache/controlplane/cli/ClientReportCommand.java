package io.inferencecache.controlplane.cli;

import com.google.protobuf.ByteString;
import io.inferencecache.controlplane.client.ChainArgs;
import io.inferencecache.controlplane.client.ClientConnection;
import io.inferencecache.controlplane.client.ClientFailure;
import io.inferencecache.controlplane.client.ClientLogging;
import io.inferencecache.controlplane.client.LookupOutput;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code client report}: one ReportCacheState stream carrying one update, "this replica holds this
 * chain" (one chain {@code PrefixEntry}) and optionally its stats; prints one line saying what the
 * server accepted. Updates are additive: a chain reported again only refreshes it.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Report that a replica holds a block-hash chain (ReportCacheState), as a sidecar would.",
      "Give the chain with --blocks, or --token-ids to have it fingerprinted here like the"
          + " vllm sidecar does."
    })
public final class ClientReportCommand implements Callable<Integer>, OwnsUsageErrors {
  private static final String NAME = "client report";

  @Spec private CommandSpec spec;
  @Mixin ClientOptions options;

  @Option(
      names = "--replica",
      required = true,
      paramLabel = "ID",
      description = "Engine replica (or backend) that holds the chain.")
  String replica;

  @Option(
      names = "--token-ids",
      paramLabel = "T1,T2,...",
      description =
          "Token ids instead of --blocks: the chain of their full blocks of --tokens-per-block,"
              + " hashed with the vllm scheme's fingerprint.")
  String tokenIds;

  @Option(
      names = "--tier",
      paramLabel = "TIER",
      description = "T1 (engine memory) or T2 (offload, e.g. LMCache) (default ${DEFAULT-VALUE}).")
  String tier = "T1";

  @Option(
      names = "--pressure",
      paramLabel = "0..1",
      description = "Also report the replica's stats with this load pressure.")
  Float pressure;

  @Option(
      names = "--hit-rate",
      paramLabel = "0..1",
      description = "Also report the replica's stats with this prefix-cache hit rate.")
  Float hitRate;

  @Override
  public Integer call() {
    ClientLogging.warningsToStderr();
    final CacheStateUpdate update;
    try {
      update = update();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    final PrintWriter out = spec.commandLine().getOut();
    final PrintWriter err = spec.commandLine().getErr();
    final Ack ack;
    try (ClientConnection c = connection()) {
      ack = c.report(update);
    } catch (ClientFailure e) {
      return ClientCommand.failure(NAME, e.getMessage(), err);
    }
    if (!ack.getAccepted()) {
      return ClientCommand.failure(
          NAME, "the server did not accept the update: " + ack.getReasonCode(), err);
    }
    out.println(accepted(update));
    out.flush();
    return 0;
  }

  private ClientConnection connection() {
    try {
      return options.connection();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  /** The update the flags describe. */
  CacheStateUpdate update() {
    options.checkScope();
    options.timeout();
    ClientOptions.nonBlank("--replica", replica);
    final CacheStateUpdate.Builder u =
        CacheStateUpdate.newBuilder()
            .setReplicaId(replica)
            .setModelId(options.model)
            .setTenantId(options.tenant)
            .setHashScheme(options.hashScheme)
            .setAdapterId(options.adapter);
    final List<ByteString> hashes = chain();
    if (hashes != null) {
      u.addPrefixes(
          PrefixEntry.newBuilder()
              .addAllBlockHashes(hashes)
              .addAllBlockTokenCounts(options.blockTokenCounts(hashes.size()))
              .setTier(tier(tier)));
    }
    if (pressure != null || hitRate != null) {
      u.setStats(
          ReplicaStats.newBuilder()
              .setReplicaId(replica)
              .setPressure(fraction("--pressure", pressure))
              .setHitRate(fraction("--hit-rate", hitRate)));
    }
    if (hashes == null && !u.hasStats()) {
      throw new IllegalArgumentException(
          "nothing to report: give --blocks or --token-ids, and/or --pressure or --hit-rate");
    }
    return u.build();
  }

  private List<ByteString> chain() {
    if (options.blocks != null && tokenIds != null) {
      throw new IllegalArgumentException("give --blocks or --token-ids, not both");
    }
    if (tokenIds == null) {
      return options.blockHashes();
    }
    if (options.blockTokens != null) {
      throw new IllegalArgumentException(
          "--block-tokens goes with --blocks; --token-ids are cut into --tokens-per-block blocks");
    }
    return ChainArgs.fingerprint(
        ChainArgs.tokenIds("--token-ids", tokenIds), options.tokensPerBlock());
  }

  /** {@code accepted: <replica> holds N blocks (T tokens) of tenant ..., model ..., ...}. */
  static String accepted(final CacheStateUpdate u) {
    final StringBuilder b = new StringBuilder("accepted: ").append(u.getReplicaId());
    if (u.getPrefixesCount() > 0) {
      final PrefixEntry e = u.getPrefixes(0);
      long tokens = 0;
      for (final int n : e.getBlockTokenCountsList()) {
        tokens += n;
      }
      b.append(" holds ")
          .append(e.getBlockHashesCount())
          .append(e.getBlockHashesCount() == 1 ? " block (" : " blocks (")
          .append(tokens)
          .append(" tokens, ")
          .append(e.getTier() == CacheTier.CACHE_TIER_T2 ? "T2" : "T1")
          .append(')');
    }
    if (u.hasStats()) {
      b.append(u.getPrefixesCount() > 0 ? " and stats (pressure " : " stats (pressure ")
          .append(LookupOutput.decimal(u.getStats().getPressure()))
          .append(", hit rate ")
          .append(LookupOutput.decimal(u.getStats().getHitRate()))
          .append(')');
    }
    b.append(" in tenant ")
        .append(u.getTenantId())
        .append(", model ")
        .append(u.getModelId())
        .append(", hash scheme ")
        .append(u.getHashScheme());
    if (!u.getAdapterId().isEmpty()) {
      b.append(", adapter ").append(u.getAdapterId());
    }
    return b.toString();
  }

  private static CacheTier tier(final String text) {
    return switch (text.trim().toUpperCase(Locale.ROOT)) {
      case "T1" -> CacheTier.CACHE_TIER_T1;
      case "T2" -> CacheTier.CACHE_TIER_T2;
      default -> throw new IllegalArgumentException("--tier \"" + text + "\": want T1 or T2");
    };
  }

  private static float fraction(final String flag, final Float value) {
    if (value == null) {
      return 0f;
    }
    if (!(value >= 0f && value <= 1f)) {
      throw new IllegalArgumentException(flag + " " + value + " must be between 0 and 1");
    }
    return value;
  }

  @Override
  public int usageError(final String message, final PrintWriter err) {
    return ClientCommand.usage(NAME, message, err);
  }
}
