/**
 * Runs a request to the group's coordinator (a commit, a heartbeat) once. kafkajs keeps the
 * coordinator it found when the member joined, and retries there (`consumer.commitOffsets`, up
 * to `retry.retries` times): after the coordinator's broker is lost, that is a dead broker for
 * as long as it is down, then one that answers "not the coordinator" for good, and the member
 * handles nothing meanwhile (minutes, seen with a broker SIGKILLed under traffic). So a failure
 * ends the member instead: kafkajs crashes it (the error is not retriable), and a fresh one
 * joins, finding the coordinator anew, and gets what was not committed again. A rebalance
 * (which includes "not the coordinator") is left to kafkajs, which joins again at once.
 */
export async function withCoordinator(request: () => Promise<void>): Promise<void> {
  try {
    await request();
  } catch (error) {
    if (isRebalancing(error)) throw error;
    throw Object.assign(
      new Error("the group's coordinator did not answer; joining again", { cause: error }),
      {
        retriable: false,
      },
    );
  }
}

/** kafkajs's own test for the errors after which it joins the group again by itself. */
function isRebalancing(error: unknown): boolean {
  const type = (error as { type?: string }).type;
  return (
    type === "REBALANCE_IN_PROGRESS" || type === "NOT_COORDINATOR_FOR_GROUP" || type === "ILLEGAL_GENERATION"
  );
}
