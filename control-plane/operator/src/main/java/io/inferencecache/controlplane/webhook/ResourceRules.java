package io.inferencecache.controlplane.webhook;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The shape rules of a container's {@code ResourceRequirements}, with the API server's own wording
 * for Pods, since these values end up in one: valid resource names, no negative quantities, whole
 * extended resources, hugepages in multiples of their page size and with cpu or memory beside them,
 * requests within limits, and for resources that cannot be overcommitted (hugepages, extended
 * resources) a limit that is set and equal to the request. Resource claims are refused.
 */
final class ResourceRules {
  private static final String HUGEPAGES = "hugepages-";
  private static final Set<String> CONTAINER_RESOURCES =
      Set.of("cpu", "memory", "ephemeral-storage");
  private static final Set<String> STANDARD_RESOURCES =
      Set.of(
          "cpu",
          "memory",
          "ephemeral-storage",
          "storage",
          "pods",
          "services",
          "replicationcontrollers",
          "resourcequotas",
          "secrets",
          "configmaps",
          "persistentvolumeclaims",
          "services.nodeports",
          "services.loadbalancers",
          "requests.cpu",
          "requests.memory",
          "requests.storage",
          "requests.ephemeral-storage",
          "limits.cpu",
          "limits.memory",
          "limits.ephemeral-storage");
  private static final String NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final Pattern NAME = Pattern.compile("^" + NAME_FORMAT + "$");
  private static final String NAME_ERROR =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
          + " alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for"
          + " validation is '"
          + NAME_FORMAT
          + "')";
  private static final String SUBDOMAIN_FORMAT =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
  private static final Pattern SUBDOMAIN = Pattern.compile("^" + SUBDOMAIN_FORMAT + "$");
  private static final String SUBDOMAIN_ERROR =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
          + " '.', and must start and end with an alphanumeric character (e.g. 'example.com',"
          + " regex used for validation is '"
          + SUBDOMAIN_FORMAT
          + "')";

  private ResourceRules() {}

  /** Every rule above over {@code r}, its errors under {@code field}. */
  static void resources(
      final String field, final V1ResourceRequirements r, final List<FieldError> e) {
    if (r.getClaims() != null && !r.getClaims().isEmpty()) {
      e.add(FieldError.forbidden(field + ".claims", "resource claims are not supported"));
    }
    final Map<String, Quantity> limits = sorted(r.getLimits());
    final Map<String, Quantity> requests = sorted(r.getRequests());
    boolean hugePages = false;
    boolean cpuOrMemory = false;
    for (final var entry : limits.entrySet()) {
      final String path = field + ".limits[" + entry.getKey() + "]";
      quantity(path, entry.getKey(), entry.getValue(), e);
      hugePages |= entry.getKey().startsWith(HUGEPAGES);
      cpuOrMemory |= "cpu".equals(entry.getKey()) || "memory".equals(entry.getKey());
    }
    for (final var entry : requests.entrySet()) {
      final String name = entry.getKey();
      final Quantity q = entry.getValue();
      final String path = field + ".requests[" + name + "]";
      quantity(path, name, q, e);
      final Quantity limit = limits.get(name);
      if (q != null && limit != null) {
        final int cmp = q.getNumber().compareTo(limit.getNumber());
        if (cmp != 0 && !overcommitAllowed(name)) {
          e.add(
              FieldError.invalid(
                  path, text(q), "must be equal to " + name + " limit of " + text(limit)));
        } else if (cmp > 0) {
          e.add(
              FieldError.invalid(
                  path,
                  text(q),
                  "must be less than or equal to " + name + " limit of " + text(limit)));
        }
      } else if (limit == null && !overcommitAllowed(name)) {
        e.add(
            FieldError.required(
                field + ".limits", "Limit must be set for non overcommitable resources"));
      }
      hugePages |= name.startsWith(HUGEPAGES);
      cpuOrMemory |= "cpu".equals(name) || "memory".equals(name);
    }
    if (hugePages && !cpuOrMemory) {
      e.add(FieldError.forbidden(field, "HugePages require cpu or memory"));
    }
  }

  /** As the API server prints a quantity ({@code -1Gi}, where the client would print bytes). */
  static String text(final Quantity q) {
    if (q.getNumber().signum() >= 0) {
      return q.toSuffixedString();
    }
    return "-" + new Quantity(q.getNumber().negate(), q.getFormat()).toSuffixedString();
  }

  private static Map<String, Quantity> sorted(final Map<String, Quantity> m) {
    return m == null ? Map.of() : new TreeMap<>(m);
  }

  /** The name, then the value of one entry of requests or limits. */
  private static void quantity(
      final String path, final String name, final Quantity q, final List<FieldError> e) {
    for (final String problem : nameProblems(name)) {
      e.add(FieldError.invalid(path, name, problem));
    }
    if (q == null) {
      return;
    }
    final BigDecimal n = q.getNumber();
    if (n.signum() < 0) {
      e.add(FieldError.invalid(path, text(q), "must be greater than or equal to 0"));
    }
    if (extended(name) && n.stripTrailingZeros().scale() > 0) {
      e.add(FieldError.invalid(path, text(q), "must be an integer"));
    }
    if (name.startsWith(HUGEPAGES) && !divisible(name, n)) {
      e.add(
          FieldError.invalid(
              path, text(q), text(q) + " is not positive integer multiple of " + name));
    }
  }

  /** Why {@code name} is no valid container resource name (empty when it is one). */
  static List<String> nameProblems(final String name) {
    final List<String> qualified = qualifiedNameProblems(name);
    if (!qualified.isEmpty()) {
      return qualified;
    }
    if (!name.contains("/")) {
      if (standardContainer(name)) {
        return List.of();
      }
      return STANDARD_RESOURCES.contains(name)
          ? List.of("must be a standard resource for containers")
          : List.of(
              "must be a standard resource type or fully qualified",
              "must be a standard resource for containers");
    }
    if (!nativeResource(name) && !extended(name)) {
      return List.of("doesn't follow extended resource name standard");
    }
    return List.of();
  }

  private static List<String> qualifiedNameProblems(final String value) {
    final String[] parts = value.split("/", -1);
    final List<String> out = new java.util.ArrayList<>();
    final String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      name = parts[1];
      final String prefix = parts[0];
      if (prefix.isEmpty()) {
        out.add("prefix part must be non-empty");
      } else {
        if (prefix.length() > 253) {
          out.add("prefix part must be no more than 253 characters");
        }
        if (!SUBDOMAIN.matcher(prefix).matches()) {
          out.add("prefix part " + SUBDOMAIN_ERROR);
        }
      }
    } else {
      return List.of(
          "a qualified name "
              + NAME_ERROR
              + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    }
    if (name.isEmpty()) {
      out.add("name part must be non-empty");
    } else if (name.length() > 63) {
      out.add("name part must be no more than 63 characters");
    }
    if (!NAME.matcher(name).matches()) {
      out.add("name part " + NAME_ERROR);
    }
    return out;
  }

  private static boolean standardContainer(final String name) {
    return CONTAINER_RESOURCES.contains(name) || name.startsWith(HUGEPAGES);
  }

  /** No domain, or a {@code kubernetes.io} one. */
  private static boolean nativeResource(final String name) {
    return !name.contains("/") || name.contains("kubernetes.io/");
  }

  /** A domain-prefixed name outside {@code kubernetes.io}: whole, never overcommitted. */
  static boolean extended(final String name) {
    return !nativeResource(name)
        && !name.startsWith("requests.")
        && qualifiedNameProblems("requests." + name).isEmpty();
  }

  private static boolean overcommitAllowed(final String name) {
    return nativeResource(name) && !name.startsWith(HUGEPAGES);
  }

  /** A hugepage quantity is a whole number of pages of the size its name gives. */
  private static boolean divisible(final String name, final BigDecimal n) {
    final BigDecimal page;
    try {
      page = Quantity.fromString(name.substring(HUGEPAGES.length())).getNumber();
    } catch (RuntimeException notASize) {
      return false;
    }
    if (page.signum() <= 0 || page.stripTrailingZeros().scale() > 0) {
      return false;
    }
    return n.remainder(page).signum() == 0;
  }
}
