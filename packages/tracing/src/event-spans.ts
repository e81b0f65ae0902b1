import type { ParentHeaders, Tracer, TraceSpan } from "./index.ts";

/** A bus subscription (as `@gateway/bus` defines it): a batch of events and, in step, their headers. */
export interface TracedSubscription {
  topic: string;
  group: string;
  handle(batch: unknown[], headers: readonly (ParentHeaders | undefined)[]): Promise<void>;
}

/**
 * Subscribes `subscription` to `bus` with one span per event around its handler, each a child of the context its
 * event carried (the gateway call that published it), so that a consumer's work joins the
 * call's trace. The spans last as long as the batch's handling (a redelivery makes new ones)
 * and end with its outcome. With no tracer, `subscription` as it is: tracing off costs nothing.
 * `requestIdOf` reads an event's request id for its span: the events' encoding is theirs (a call
 * event is a binary frame).
 */
export function subscribeTraced<S extends TracedSubscription>(
  bus: { subscribe(subscription: S): Promise<void> },
  tracer: Tracer | null | undefined,
  name: string,
  subscription: S,
  requestIdOf: (event: unknown) => string | undefined,
): Promise<void> {
  if (!tracer) return bus.subscribe(subscription);
  const { topic, group } = subscription;
  const handle = subscription.handle.bind(subscription);
  return bus.subscribe({
    ...subscription,
    async handle(batch, headers) {
      const spans: TraceSpan[] = batch.map((event, i) =>
        tracer.startSpan(name, "consumer", headers[i], {
          "messaging.operation.type": "process",
          "messaging.destination.name": topic,
          "messaging.consumer.group.name": group,
          "messaging.batch.message_count": batch.length,
          "gateway.request_id": requestIdOf(event),
        }),
      );
      try {
        await handle(batch, headers);
      } catch (error) {
        // the error's type only: a message may quote what the handler was storing
        const type = error instanceof Error ? error.name : "error";
        for (const span of spans) {
          span.setAttributes({ "error.type": type });
          span.end(type);
        }
        throw error;
      }
      for (const span of spans) span.end();
    },
  });
}
