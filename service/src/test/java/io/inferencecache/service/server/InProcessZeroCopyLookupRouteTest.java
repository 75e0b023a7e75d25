package io.inferencecache.service.server;

/** {@link LookupRouteBehaviourSuite} on the in-process transport, zero-copy LookupRoute path. */
class InProcessZeroCopyLookupRouteTest extends LookupRouteBehaviourSuite {
  @Override
  ServiceHarness.Transport transport() {
    return ServiceHarness.Transport.IN_PROCESS_ZERO_COPY;
  }
}
