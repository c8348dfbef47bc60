import {
  hardDelete,
  live,
  meta,
  programOfChain,
  sample,
  softDelete,
  type WeightedAction,
} from './activity-helpers.ts';
import {
  makeLoyaltyMembership,
  makePaymentRequest,
  makeReservationGroup,
} from './factories-guests.ts';
import { linkedReservation, paymentRequestLink, reservationsOf } from './generate-reservations.ts';

/** Mutations of loyalty memberships, payment requests and reservation groups, with their weights. */
export const LOYALTY_AND_BOOKING_ACTIONS: readonly WeightedAction[] = [
  [
    4,
    (model) => {
      const customer = sample(model, model.customers, live);
      const program = programOfChain(model, customer?.chainId ?? model.world.chainId);
      if (!customer || !program) return false;
      model.create(
        model.loyaltyMemberships,
        'loyaltyMembership',
        makeLoyaltyMembership(
          model,
          customer.record.Id,
          program.record.Id,
          model.clock.now(),
          customer.chainId,
        ),
        meta(model, null, customer.chainId),
      );
      return true;
    },
  ],
  [
    4,
    (model) => {
      const entry = sample(model, model.loyaltyMemberships, live);
      if (!entry) return false;
      model.update(model.loyaltyMemberships, 'loyaltyMembership', entry.record.Id, {
        Points: (entry.record.Points ?? 0) + model.random.int(10, 500),
      });
      return true;
    },
  ],
  [2, (model) => softDelete(model, model.loyaltyMemberships, 'loyaltyMembership', {})],
  [
    5,
    (model) => {
      const customer = sample(model, model.customers, live);
      if (!customer) return false;
      const enterprises = model.world.enterprises;
      const drawn = model.random.int(0, enterprises.length - 1);
      // A hotel of the guest's own chain (independent hotels share no guests).
      const index =
        enterprises[drawn]!.ChainId === customer.chainId
          ? drawn
          : Math.max(
              0,
              enterprises.findIndex((e) => e.ChainId === customer.chainId),
            );
      const made = makePaymentRequest(
        model,
        index,
        customer.record.Id,
        'Pending',
        model.clock.now(),
      );
      // A third of new requests pay for a reservation, like the generated ones.
      const reservation = linkedReservation(
        reservationsOf(model, made.EnterpriseId),
        model.paymentRequests.storedCount,
      );
      const request = reservation ? { ...made, ...paymentRequestLink(reservation) } : made;
      model.create(
        model.paymentRequests,
        'paymentRequest',
        request,
        meta(model, request.EnterpriseId),
      );
      return true;
    },
  ],
  [
    4,
    (model) => {
      const entry = sample(model, model.paymentRequests, (e) => e.record.State === 'Pending');
      if (!entry) return false;
      const State = model.random.pick(['Completed', 'Completed', 'Canceled', 'Expired'] as const);
      model.update(model.paymentRequests, 'paymentRequest', entry.record.Id, { State });
      return true;
    },
  ],
  [2, (model) => hardDelete(model, model.paymentRequests, 'paymentRequest')],
  [
    3,
    (model) => {
      const group = makeReservationGroup(
        model,
        model.random.int(0, model.world.enterprises.length - 1),
      );
      model.create(
        model.reservationGroups,
        'reservationGroup',
        group,
        meta(model, group.EnterpriseId),
      );
      return true;
    },
  ],
  [
    2,
    (model) => {
      const entry = sample(model, model.reservationGroups);
      if (!entry) return false;
      model.update(model.reservationGroups, 'reservationGroup', entry.record.Id, {
        Name: model.random.pick(['Smith wedding', 'Conference', 'Ski club']),
      });
      return true;
    },
  ],
  [2, (model) => hardDelete(model, model.reservationGroups, 'reservationGroup')],
];
