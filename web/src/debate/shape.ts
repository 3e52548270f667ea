/**
 * `memo`'s comparison for the sections that change only with the debate's shape (any event but a text delta): they
 * skip the frames where only text streamed in.
 */
export const sameShape = (a: { shape: number }, b: { shape: number }) => a.shape === b.shape;
