package io.inferencecache.controlplane.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.inferencecache.templates.InvalidTemplateException;
import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.PromptTemplateSpec;
import io.inferencecache.templates.Slot;
import io.inferencecache.templates.SlotType;
import io.inferencecache.templates.TemplateRules;
import io.inferencecache.templates.TemplateViolation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code /prompt-templates} body (docs/server.md), both directions: the server decodes what the
 * controller (or an operator) POSTs and writes what GET reads back; the controller writes its push
 * body with {@link #write}.
 *
 * <pre>
 * {"version":1,"templates":[{"namespace":"team-a","name":"support",
 *   "modelId":"meta-llama/Llama-3.1-8B-Instruct","body":"{{.system}}\n\nUser: {{.question}}",
 *   "slots":[{"name":"system","type":"Stable","required":true},
 *            {"name":"question","type":"Mutable","required":true}],
 *   "revision":"sha256:…"}]}
 * </pre>
 *
 * <p>Strict: one JSON object and nothing after it; {@code version} must be 1; keys match exactly
 * (case-sensitive), an unknown or repeated key is refused; each value must have its type ({@code
 * required} a boolean, the rest strings, {@code templates} and {@code slots} arrays of objects);
 * {@code namespace}, {@code name}, {@code body}, {@code slots[].name} and {@code slots[].type} are
 * required; {@code modelId}, {@code slots[].required} (false) and {@code slots[].description} are
 * optional. Every template must keep {@link TemplateRules} and have a unique {@code
 * namespace/name}. {@code revision} is optional on input; when given it must be the spec's own
 * {@link io.inferencecache.templates.TemplateRevision} (so a body read back with GET can be POSTed
 * again, and a stale one is caught). Every error names its field, e.g. {@code
 * templates[0].slots[1].type: must be "Stable" or "Mutable", not "stable"}.
 */
public final class PromptTemplateJson {
  /** The one body version. */
  public static final int VERSION = 1;

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .build();

  private static final Set<String> TOP = Set.of("version", "templates");
  private static final Set<String> TEMPLATE =
      Set.of("namespace", "name", "modelId", "body", "slots", "revision");
  private static final Set<String> SLOT = Set.of("name", "type", "required", "description");

  private PromptTemplateJson() {}

  /**
   * Decodes and validates {@code body[0, length)}: the templates, compiled, in body order.
   *
   * @throws JsonDecodeException naming the field at fault
   */
  public static List<PromptTemplate> decode(final byte[] body, final int length)
      throws JsonDecodeException {
    final JsonNode root;
    try (JsonParser p = JSON.getFactory().createParser(body, 0, length)) {
      root = JSON.readTree(p);
      if (p.nextToken() != null) {
        throw new JsonDecodeException("invalid JSON: content after the body's object");
      }
    } catch (JsonProcessingException e) {
      throw new JsonDecodeException("invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new JsonDecodeException("invalid JSON: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      throw new JsonDecodeException("empty body");
    }
    if (!root.isObject()) {
      throw new JsonDecodeException("the body must be a JSON object");
    }
    known(root, TOP, "");
    final JsonNode version = root.get("version");
    if (version == null || !version.isIntegralNumber() || version.asLong() != VERSION) {
      throw new JsonDecodeException(
          "version: must be " + VERSION + ", not " + (version == null ? "absent" : version));
    }
    final JsonNode list = root.get("templates");
    if (list == null || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw new JsonDecodeException("templates: must be an array");
    }
    final List<PromptTemplate> out = new ArrayList<>(list.size());
    final Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      final String f = "templates[" + i + "]";
      final PromptTemplate t = template(list.get(i), f);
      final Integer earlier = seen.putIfAbsent(t.ref(), i);
      if (earlier != null) {
        throw new JsonDecodeException(
            f + ": \"" + t.ref() + "\" is already templates[" + earlier + "]");
      }
      out.add(t);
    }
    return out;
  }

  private static PromptTemplate template(final JsonNode n, final String f)
      throws JsonDecodeException {
    if (!n.isObject()) {
      throw new JsonDecodeException(f + ": must be an object");
    }
    known(n, TEMPLATE, f + ".");
    final String namespace = string(n, "namespace", f, true);
    final String name = string(n, "name", f, true);
    final String modelId = string(n, "modelId", f, false);
    final String body = string(n, "body", f, true);
    final JsonNode slotsNode = n.get("slots");
    final List<Slot> slots = new ArrayList<>();
    if (slotsNode != null && !slotsNode.isNull()) {
      if (!slotsNode.isArray()) {
        throw new JsonDecodeException(f + ".slots: must be an array");
      }
      for (int j = 0; j < slotsNode.size(); j++) {
        slots.add(slot(slotsNode.get(j), f + ".slots[" + j + "]"));
      }
    }
    final List<TemplateViolation> v = new ArrayList<>();
    TemplateRules.checkObjectName(namespace, f + ".namespace", v);
    TemplateRules.checkObjectName(name, f + ".name", v);
    final PromptTemplateSpec spec = new PromptTemplateSpec(modelId, body, slots);
    v.addAll(TemplateRules.validate(spec, f));
    if (!v.isEmpty()) {
      throw new JsonDecodeException(v.get(0).toString());
    }
    final PromptTemplate t;
    try {
      t = PromptTemplate.compile(namespace, name, spec);
    } catch (InvalidTemplateException e) {
      throw new JsonDecodeException(f + ": " + e.getMessage());
    }
    final String revision = string(n, "revision", f, false);
    if (!revision.isEmpty() && !revision.equals(t.revision())) {
      throw new JsonDecodeException(
          f
              + ".revision: \""
              + revision
              + "\" is not the revision of this spec, \""
              + t.revision()
              + "\" (leave it out to take the spec as it is)");
    }
    return t;
  }

  private static Slot slot(final JsonNode n, final String f) throws JsonDecodeException {
    if (!n.isObject()) {
      throw new JsonDecodeException(f + ": must be an object");
    }
    known(n, SLOT, f + ".");
    final String name = string(n, "name", f, true);
    final String typeText = string(n, "type", f, true);
    final SlotType type = SlotType.parse(typeText);
    if (type == null) {
      throw new JsonDecodeException(
          f + ".type: must be \"Stable\" or \"Mutable\", not \"" + typeText + "\"");
    }
    final JsonNode required = n.get("required");
    if (required != null && !required.isNull() && !required.isBoolean()) {
      throw new JsonDecodeException(f + ".required: must be true or false");
    }
    final String description = string(n, "description", f, false);
    return new Slot(name, type, required != null && required.asBoolean(), description);
  }

  private static void known(final JsonNode n, final Set<String> keys, final String prefix)
      throws JsonDecodeException {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      final String k = it.next();
      if (!keys.contains(k)) {
        throw new JsonDecodeException(prefix + k + ": unknown field");
      }
    }
  }

  /** A string member; absent or null → "" unless required. */
  private static String string(
      final JsonNode n, final String key, final String f, final boolean required)
      throws JsonDecodeException {
    final JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      if (required) {
        throw new JsonDecodeException(f + "." + key + ": required");
      }
      return "";
    }
    if (!v.isTextual()) {
      throw new JsonDecodeException(f + "." + key + ": must be a string");
    }
    final String text = v.textValue();
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new JsonDecodeException(
            f + "." + key + ": an unpaired surrogate escape at character " + i + " (not text)");
      }
    }
    return text;
  }

  /**
   * The body of {@code templates}, each with its {@code revision}; empty fields ({@code modelId}, a
   * slot's {@code description}) left out, {@code required} always written.
   */
  public static String write(final List<PromptTemplate> templates) {
    final StringBuilder out = new StringBuilder(256);
    out.append("{\"version\":").append(VERSION).append(",\"templates\":[");
    boolean first = true;
    for (PromptTemplate t : templates) {
      if (!first) {
        out.append(',');
      }
      first = false;
      final PromptTemplateSpec s = t.spec();
      out.append("{\"namespace\":");
      GoJson.string(out, t.namespace());
      out.append(",\"name\":");
      GoJson.string(out, t.name());
      if (!s.modelId().isEmpty()) {
        out.append(",\"modelId\":");
        GoJson.string(out, s.modelId());
      }
      out.append(",\"body\":");
      GoJson.string(out, s.body());
      out.append(",\"slots\":[");
      boolean firstSlot = true;
      for (Slot slot : s.slots()) {
        if (!firstSlot) {
          out.append(',');
        }
        firstSlot = false;
        out.append("{\"name\":");
        GoJson.string(out, slot.name());
        out.append(",\"type\":");
        GoJson.string(out, slot.type().wireName());
        out.append(",\"required\":").append(slot.required());
        if (!slot.description().isEmpty()) {
          out.append(",\"description\":");
          GoJson.string(out, slot.description());
        }
        out.append('}');
      }
      out.append("],\"revision\":");
      GoJson.string(out, t.revision());
      out.append('}');
    }
    return out.append("]}").toString();
  }
}
