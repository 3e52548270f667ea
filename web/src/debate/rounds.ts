/** Rounds of a deep debate when a request names none: `DeepRequest.rounds` and `FollowUpRequest.rounds` in the contract. */
export const DEFAULT_ROUNDS = 3;
