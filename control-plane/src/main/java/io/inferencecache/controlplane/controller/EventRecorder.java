package io.inferencecache.controlplane.controller;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code events.k8s.io/v1} events (reason = action) about the controller's objects. A
 * failure to write one is logged and never fails the caller.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

  /** {@code reportingController} of the policy push's events. */
  public static final String CONTROLLER = "inferencecache.io/controlplane-controller";

  /** An event note holds at most 1 kB. */
  static final int NOTE_MAX = 1024;

  private final EventsV1Api events;
  private final String instance;

  public EventRecorder(final ApiClient client, final String instance) {
    this.events = new EventsV1Api(client);
    this.instance = instance;
  }

  /** A Warning event {@code reason} about {@code regarding} with {@code note}. */
  public void warning(final V1ObjectReference regarding, final String reason, final String note) {
    record(CONTROLLER, WARNING, regarding, null, reason, note);
  }

  /** {@code type} of a routine event. */
  public static final String NORMAL = "Normal";

  /** {@code type} of an event an operator should act on. */
  public static final String WARNING = "Warning";

  /**
   * An event {@code reason} (also its action) of {@code type} about {@code regarding}, optionally
   * {@code related} to a second object, reported by {@code controller}.
   */
  public void record(
      final String controller,
      final String type,
      final V1ObjectReference regarding,
      final V1ObjectReference related,
      final String reason,
      final String note) {
    final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    final EventsV1Event event =
        new EventsV1Event()
            .metadata(
                new V1ObjectMeta()
                    .namespace(regarding.getNamespace())
                    .name(
                        regarding.getName()
                            + "."
                            + Long.toHexString(System.nanoTime()).toLowerCase(Locale.ROOT)))
            .eventTime(now)
            .type(type)
            .reason(reason)
            .action(reason)
            .note(note.length() > NOTE_MAX ? note.substring(0, NOTE_MAX) : note)
            .regarding(regarding)
            .related(related)
            .reportingController(controller)
            .reportingInstance(instance);
    try {
      events.createNamespacedEvent(regarding.getNamespace(), event).execute();
    } catch (ApiException e) {
      LOG.warn(
          "event {} on {}/{} not written: {} {}",
          reason,
          regarding.getNamespace(),
          regarding.getName(),
          e.getCode(),
          e.getResponseBody());
    }
  }
}
