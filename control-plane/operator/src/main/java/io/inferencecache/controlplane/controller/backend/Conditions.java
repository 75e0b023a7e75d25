package io.inferencecache.controlplane.controller.backend;

import io.kubernetes.client.openapi.models.V1Condition;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A status's condition list (a list map keyed by {@code type}): setting a condition keeps its
 * {@code lastTransitionTime} while its status is unchanged, so an unchanged verdict is an unchanged
 * object and no write.
 */
public final class Conditions {
  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  private Conditions() {}

  public static V1Condition get(final List<V1Condition> list, final String type) {
    if (list == null) {
      return null;
    }
    for (final V1Condition c : list) {
      if (type.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  static boolean is(final List<V1Condition> list, final String type, final String status) {
    final V1Condition c = get(list, type);
    return c != null && status.equals(c.getStatus());
  }

  public static String reason(final List<V1Condition> list, final String type) {
    final V1Condition c = get(list, type);
    return c == null ? null : c.getReason();
  }

  /**
   * Longest condition message the API server takes ({@code metav1.Condition}'s bound, the CRDs'
   * {@code maxLength}); a longer one would make the whole status write fail.
   */
  public static final int MAX_MESSAGE_CHARS = 32_768;

  /**
   * Sets {@code type}; returns the list (created when {@code list} is null). A message over {@link
   * #MAX_MESSAGE_CHARS} is cut to fit, ending in {@code …}.
   */
  public static List<V1Condition> set(
      final List<V1Condition> list,
      final String type,
      final String status,
      final String reason,
      final String fullMessage,
      final long generation,
      final OffsetDateTime now) {
    final String message = bounded(fullMessage);
    final List<V1Condition> out = list == null ? new ArrayList<>() : list;
    final V1Condition existing = get(out, type);
    if (existing == null) {
      out.add(
          new V1Condition()
              .type(type)
              .status(status)
              .reason(reason)
              .message(message)
              .observedGeneration(generation)
              .lastTransitionTime(now));
      return out;
    }
    if (!status.equals(existing.getStatus())) {
      existing.setLastTransitionTime(now);
    }
    existing.status(status).reason(reason).message(message).observedGeneration(generation);
    return out;
  }

  private static String bounded(final String message) {
    if (message == null || message.length() <= MAX_MESSAGE_CHARS) {
      return message;
    }
    int end = MAX_MESSAGE_CHARS - 1;
    if (Character.isHighSurrogate(message.charAt(end - 1))) {
      end--;
    }
    return message.substring(0, end) + "…";
  }

  /**
   * Gives every condition of {@code now} whose status equals its counterpart in {@code old} that
   * counterpart's {@code lastTransitionTime} (a verdict rebuilt within one reconcile did not move).
   */
  public static void keepTransitionTimes(final List<V1Condition> old, final List<V1Condition> now) {
    if (now == null) {
      return;
    }
    for (final V1Condition c : now) {
      final V1Condition o = get(old, c.getType());
      if (o != null && o.getStatus().equals(c.getStatus())) {
        c.setLastTransitionTime(o.getLastTransitionTime());
      }
    }
  }

  /** Sets {@code type} to verdict {@code v}; returns the list. */
  static List<V1Condition> set(
      final List<V1Condition> list,
      final String type,
      final ReadyRules.Verdict v,
      final long generation,
      final OffsetDateTime now) {
    return set(list, type, v.status(), v.reason(), v.message(), generation, now);
  }

  /** Sets {@code type} to {@code v}, or removes it when {@code v} is null; returns the list. */
  static List<V1Condition> setOrRemove(
      final List<V1Condition> list,
      final String type,
      final ReadyRules.Verdict v,
      final long generation,
      final OffsetDateTime now) {
    if (v == null) {
      remove(list, type);
      return list;
    }
    return set(list, type, v, generation, now);
  }

  static void remove(final List<V1Condition> list, final String... types) {
    if (list == null) {
      return;
    }
    for (final String t : types) {
      list.removeIf(c -> t.equals(c.getType()));
    }
  }
}
