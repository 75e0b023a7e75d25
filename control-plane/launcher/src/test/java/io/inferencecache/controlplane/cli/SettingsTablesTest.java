package io.inferencecache.controlplane.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.dropwizard.core.setup.Bootstrap;
import io.inferencecache.controlplane.server.ControlPlaneApplication;
import io.inferencecache.controlplane.server.ServeLauncher;
import io.inferencecache.controlplane.server.config.ControlPlaneConfiguration;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The settings tables of docs/configuration.md against the configuration classes: every YAML key
 * the page lists is accepted and round-trips (a value other than the default is written and read
 * back), every key of the configuration classes is listed, and every {@code serve} flag overrides
 * the YAML key the table names.
 */
class SettingsTablesTest {
  private static final Path REFERENCE = Path.of("..", "..", "docs", "configuration.md");
  private static final Pattern KEY = Pattern.compile("`([A-Za-z.]+)`");
  private static final Pattern AMOUNT = Pattern.compile("(\\d+) (\\w+)");
  private static final Pattern PORT = Pattern.compile(":(\\d+)");

  /** Keys whose values are a closed set: the two non-default values a test may write. */
  private static final Map<String, List<String>> CHOICES =
      Map.of("log.format", List.of("text", "json"), "log.level", List.of("debug", "warn"));

  private static volatile byte[] yaml = new byte[0];
  private final Bootstrap<ControlPlaneConfiguration> bootstrap = bootstrap();
  private final ObjectMapper mapper = bootstrap.getObjectMapper();

  private static Bootstrap<ControlPlaneConfiguration> bootstrap() {
    final ControlPlaneApplication app = new ControlPlaneApplication(null);
    final Bootstrap<ControlPlaneConfiguration> b = new Bootstrap<>(app);
    b.setConfigurationSourceProvider(path -> new ByteArrayInputStream(yaml));
    app.initialize(b);
    return b;
  }

  @Test
  void everyYamlKeyTheReadmeListsIsAcceptedAndRoundTrips() throws Exception {
    final Set<String> keys = yamlTableKeys();
    assertThat(keys).contains("listeners.grpc", "feeds.eventBuffer", "feeds.metricsInterval");
    final ControlPlaneConfiguration defaults = new ControlPlaneConfiguration();
    for (final String key : keys) {
      final JsonNode value = changed(key, valueOf(defaults, key), 0);
      final ControlPlaneConfiguration read = load(yamlSetting(key, value), ServeOverrides.NONE);
      assertSame(key, valueOf(read, key), value);
    }
  }

  @Test
  void everyKeyOfTheConfigurationIsInTheReadme() throws Exception {
    final Set<String> listed = yamlTableKeys();
    final ControlPlaneConfiguration defaults = new ControlPlaneConfiguration();
    final List<String> missing = new ArrayList<>();
    for (final Method getter : ControlPlaneConfiguration.class.getDeclaredMethods()) {
      if (!getter.getName().startsWith("get") || getter.getParameterCount() != 0) {
        continue;
      }
      final String section = decapitalize(getter.getName().substring(3));
      final JsonNode tree = mapper.valueToTree(getter.invoke(defaults));
      for (final Iterator<String> it = tree.fieldNames(); it.hasNext(); ) {
        final String key = section + "." + it.next();
        if (!listed.contains(key)) {
          missing.add(key);
        }
      }
    }
    assertThat(missing).as("keys missing from the YAML table of docs/configuration.md").isEmpty();
  }

  @Test
  void everyServeFlagOverridesItsYamlKey() throws Exception {
    final Map<String, String> flags = flagTableKeys();
    assertThat(flags).containsEntry("--grpc-bind-address", "listeners.grpc").hasSize(14);
    final ControlPlaneConfiguration defaults = new ControlPlaneConfiguration();
    for (final Map.Entry<String, String> row : flags.entrySet()) {
      final String key = row.getValue();
      final JsonNode def = valueOf(defaults, key);
      final JsonNode inFile = changed(key, def, 0);
      final JsonNode onFlag = changed(key, def, 1);
      assertThat(onFlag).as(key).isNotEqualTo(inFile);
      final ServeCommand command = new ServeCommand();
      new CommandLine(command).parseArgs(row.getKey() + "=" + onFlag.asText());
      final ControlPlaneConfiguration read = load(yamlSetting(key, inFile), command.overrides());
      assertSame(row.getKey() + " over " + key, valueOf(read, key), onFlag);
      // Without the flag the file's value stands.
      assertSame(key, valueOf(load(yamlSetting(key, inFile), ServeOverrides.NONE), key), inFile);
    }
  }

  // ---------------------------------------------------------------------------------------------

  private ControlPlaneConfiguration load(final String text, final ServeOverrides flags)
      throws Exception {
    yaml = text.getBytes(StandardCharsets.UTF_8);
    return ServeLauncher.readConfiguration(bootstrap, flags, "settings.yaml");
  }

  private String yamlSetting(final String key, final JsonNode value) throws IOException {
    final String[] parts = key.split("\\.", 2);
    final ObjectNode root = mapper.createObjectNode();
    root.putObject(parts[0]).set(parts[1], value);
    return mapper.writeValueAsString(root); // JSON is YAML
  }

  private JsonNode valueOf(final ControlPlaneConfiguration config, final String key)
      throws Exception {
    final String[] parts = key.split("\\.", 2);
    final Method getter =
        ControlPlaneConfiguration.class.getMethod(
            "get" + Character.toUpperCase(parts[0].charAt(0)) + parts[0].substring(1));
    final JsonNode section = mapper.valueToTree(getter.invoke(config));
    assertThat(section.has(parts[1])).as("configuration key " + key).isTrue();
    return section.get(parts[1]);
  }

  /** A value other than {@code def} ({@code step} 0 and 1 give two different ones). */
  private static JsonNode changed(final String key, final JsonNode def, final int step) {
    if (CHOICES.containsKey(key)) {
      return TextNode.valueOf(CHOICES.get(key).get(step));
    }
    if (def == null || def.isNull()) {
      return TextNode.valueOf("round-trip-" + step + ".dat");
    }
    if (def.isBoolean()) {
      return BooleanNode.valueOf(step == 0 != def.booleanValue());
    }
    if (def.isInt()) {
      return IntNode.valueOf(def.intValue() + 1 + step);
    }
    if (def.isLong()) {
      return LongNode.valueOf(def.longValue() + 1 + step);
    }
    if (def.isFloat()) {
      return FloatNode.valueOf(def.floatValue() == 0 ? 0.5f : def.floatValue() / (2 + step));
    }
    if (def.isDouble()) {
      return DoubleNode.valueOf(def.doubleValue() == 0 ? 0.5 : def.doubleValue() / (2 + step));
    }
    final String text = def.asText();
    final Matcher port = PORT.matcher(text);
    if (port.matches()) {
      return TextNode.valueOf(":" + (Integer.parseInt(port.group(1)) + 100 * (1 + step)));
    }
    final Matcher amount = AMOUNT.matcher(text);
    if (amount.matches()) {
      final long n = Long.parseLong(amount.group(1));
      return TextNode.valueOf((n * (2 + step) + 1) + " " + amount.group(2));
    }
    return TextNode.valueOf("round-trip-" + step);
  }

  private static void assertSame(final String what, final JsonNode read, final JsonNode written) {
    if (read.isNumber() && written.isNumber()) {
      assertThat(read.doubleValue()).as(what).isCloseTo(written.doubleValue(), within());
    } else if (AMOUNT.matcher(written.asText()).matches()) {
      // Dropwizard prints durations and sizes with a plural unit; compare the amounts.
      assertThat(normalize(read.asText())).as(what).isEqualTo(normalize(written.asText()));
    } else {
      assertThat(read.asText()).as(what).isEqualTo(written.asText());
    }
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-6);
  }

  private static String normalize(final String amount) {
    final String s = amount.toLowerCase(Locale.ROOT).strip();
    return s.endsWith("s") ? s.substring(0, s.length() - 1) : s;
  }

  private static String decapitalize(final String s) {
    return Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  /**
   * The first-column keys of the YAML table of docs/configuration.md ({@code a.b}, {@code a.b / .c}
   * forms).
   */
  static Set<String> yamlTableKeys() throws IOException {
    final Set<String> keys = new LinkedHashSet<>();
    for (final List<String> row : table("### YAML configuration")) {
      String section = null;
      final Matcher m = KEY.matcher(row.get(0));
      while (m.find()) {
        String key = m.group(1);
        if (key.startsWith(".")) {
          key = section + key;
        }
        section = key.substring(0, key.indexOf('.'));
        keys.add(key);
      }
    }
    keys.removeIf(
        k -> k.startsWith("server.") || k.startsWith("logging.") || k.startsWith("metrics."));
    return keys;
  }

  /**
   * Flag → YAML key of the {@code serve} flags table of docs/configuration.md (rows with a key).
   */
  static Map<String, String> flagTableKeys() throws IOException {
    final Map<String, String> flags = new LinkedHashMap<>();
    for (final List<String> row : table("### Flags (`serve`)")) {
      final Matcher key = KEY.matcher(row.get(1));
      if (row.get(0).startsWith("`--") && key.find()) {
        flags.put(row.get(0).substring(1, row.get(0).indexOf('`', 1)), key.group(1));
      }
    }
    return flags;
  }

  /** The body rows of the first table after {@code heading}, split into cells. */
  private static List<List<String>> table(final String heading) throws IOException {
    final List<String> lines = Files.readAllLines(REFERENCE);
    int i = lines.indexOf(heading);
    assertThat(i).as("docs/configuration.md heading " + heading).isNotNegative();
    while (!lines.get(i).startsWith("|")) {
      i++;
    }
    final List<List<String>> rows = new ArrayList<>();
    for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      final String line = lines.get(i);
      final List<String> cells = new ArrayList<>();
      for (final String cell : line.substring(1, line.length() - 1).split("\\|", -1)) {
        cells.add(cell.strip());
      }
      rows.add(cells);
    }
    return rows;
  }
}
