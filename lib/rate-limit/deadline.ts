/**
 * `promise`, or a rejection when it has not settled `ms` after this call. The deadline is judged
 * after the event loop's pending I/O has run (setImmediate from the timer): a process that was
 * descheduled or busy past the deadline must not blame a store whose reply already sits in its
 * socket, as a plain timer would (a timer due at once runs before the I/O that arrived meanwhile).
 */
export function withinDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (done) return;
          done = true;
          reject(new Error(message));
        }),
      ms,
    );
    promise.then(
      (value) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
