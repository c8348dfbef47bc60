import { AccountNotesGetAllRequestSchema } from '../connector/operations/account-notes-get-all.ts';
import { CustomersGetAllRequestSchema } from '../connector/operations/customers-get-all.ts';
import { LoyaltyMembershipsGetAllRequestSchema } from '../connector/operations/loyalty-memberships-get-all.ts';
import { LoyaltyProgramsUpdateRequestSchema } from '../connector/operations/loyalty-programs-update.ts';
import { PaymentRequestsAddRequestSchema } from '../connector/operations/payment-requests-add.ts';
import { PaymentRequestsGetAllRequestSchema } from '../connector/operations/payment-requests-get-all.ts';
import { ReservationGroupsGetAllRequestSchema } from '../connector/operations/reservation-groups-get-all.ts';
import type {
  IdentityDocument,
  LoyaltyProgram,
  PaymentRequest,
} from '../connector/records/index.ts';
import { grossAmount } from './amount.ts';
import type { SimContext } from './context.ts';
import { requireChain, requireEnterprise } from './context.ts';
import {
  activityAllows,
  allowedChains,
  allowedEnterprises,
  cursorAfter,
  inInterval,
  matches,
  pageOf,
  SimApiError,
  setOf,
} from './query.ts';
import { iso } from './sim-random.ts';

const DOCUMENT_KINDS = ['Passport', 'IdentityCard', 'Visa', 'DriversLicense'] as const;

/**
 * customers/getAll: Extent picks customers, documents and addresses; the Cursor is the page's
 * oldest customer whenever customers or documents are asked for (rules 4 and 5), else null.
 */
export function customersGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = CustomersGetAllRequestSchema.parse(raw);
  const chains = allowedChains(ctx.scope, body.ChainIds);
  const emails = setOf(body.Emails?.map((email) => email.toLowerCase()));
  const [firsts, lasts, codes] = [
    setOf(body.FirstNames),
    setOf(body.LastNames),
    setOf(body.LoyaltyCodes),
  ];
  const companies = setOf(body.CompanyIds);
  const page = pageOf(
    ctx.model.customers,
    body.Limitation,
    (entry) => {
      const c = entry.record;
      // The time windows first: a live poll's window passes over nearly every record.
      return (
        inInterval(entry.updatedMs, body.UpdatedUtc) &&
        inInterval(entry.createdMs, body.CreatedUtc) &&
        chains.has(entry.chainId) &&
        activityAllows(entry, body.ActivityStates) &&
        (!body.DeletedUtc || inInterval(entry.deletedMs, body.DeletedUtc)) &&
        matches(emails, c.Email?.toLowerCase()) &&
        matches(firsts, c.FirstName ?? undefined) &&
        matches(lasts, c.LastName) &&
        matches(codes, c.LoyaltyCode ?? undefined) &&
        matches(companies, c.CompanyId ?? undefined)
      );
    },
    body.CustomerIds,
    { chainIds: chains },
    body.UpdatedUtc,
  );
  // Only an extent set to true returns its data: the contract gives no default, and a null or
  // left-out one is read as "not asked" (a client must ask for customers to get them).
  const withCustomers = body.Extent.Customers === true;
  const withDocuments = body.Extent.Documents === true;
  const withAddresses = body.Extent.Addresses === true;
  const customers = withCustomers
    ? page.map((entry) => {
        if (withAddresses) return entry.record;
        const { Address: _address, ...rest } = entry.record;
        return rest;
      })
    : [];
  const documents: IdentityDocument[] = withDocuments
    ? page.flatMap((entry) => DOCUMENT_KINDS.flatMap((kind) => entry.record[kind] ?? []))
    : [];
  // Pagination rules 4 and 5: asked for customers or documents, the page's Cursor goes on even
  // when its customers hold no documents, or a walk by documents would end before older ones.
  // Asked for neither, nothing is ever returned, and the Cursor is null.
  const asked = withCustomers || withDocuments;
  return {
    Customers: customers,
    Documents: withDocuments ? documents : null,
    Cursor: cursorAfter(page, asked && page.length > 0),
  };
}

/** accountNotes/getAll: chain-level notes; UpdatedUtc uses the internal update time. */
export function accountNotesGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = AccountNotesGetAllRequestSchema.parse(raw);
  const chains = allowedChains(ctx.scope, body.ChainIds);
  const accounts = setOf(body.AccountIds);
  const page = pageOf(
    ctx.model.accountNotes,
    body.Limitation,
    (entry) =>
      chains.has(entry.chainId) &&
      activityAllows(entry, body.ActivityStates) &&
      inInterval(entry.updatedMs, body.UpdatedUtc) &&
      matches(accounts, entry.record.AccountId),
    body.AccountNoteIds,
    { chainIds: chains },
    body.UpdatedUtc,
  );
  return { AccountNotes: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** loyaltyMemberships/getAll: soft-deleted memberships only with ActivityStates Deleted. */
export function loyaltyMembershipsGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = LoyaltyMembershipsGetAllRequestSchema.parse(raw);
  const chains = allowedChains(ctx.scope, body.ChainIds);
  const [accounts, programs, states] = [
    setOf(body.AccountIds),
    setOf(body.LoyaltyProgramIds),
    setOf(body.MembershipStates),
  ];
  const [codes, providers] = [setOf(body.Codes), setOf(body.ProviderMembershipIds)];
  const page = pageOf(
    ctx.model.loyaltyMemberships,
    body.Limitation,
    (entry) => {
      const m = entry.record;
      return (
        chains.has(entry.chainId) &&
        activityAllows(entry, body.ActivityStates) &&
        inInterval(entry.createdMs, body.CreatedUtc) &&
        inInterval(entry.updatedMs, body.UpdatedUtc) &&
        matches(accounts, m.AccountId) &&
        matches(programs, m.LoyaltyProgramId) &&
        matches(states, m.State) &&
        matches(codes, m.Code ?? undefined) &&
        matches(providers, m.ProviderMembershipId ?? undefined)
      );
    },
    body.LoyaltyMembershipIds,
    { chainIds: chains },
    body.UpdatedUtc,
  );
  return { LoyaltyMemberships: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** paymentRequests/getAll: hard-deleted requests are gone; States filters the lifecycle. */
export function paymentRequestsGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = PaymentRequestsGetAllRequestSchema.parse(raw);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const [accounts, reservations, states] = [
    setOf(body.AccountIds),
    setOf(body.ReservationIds),
    setOf(body.States),
  ];
  const page = pageOf(
    ctx.model.paymentRequests,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') &&
      inInterval(entry.updatedMs, body.UpdatedUtc) &&
      matches(accounts, entry.record.AccountId) &&
      matches(reservations, entry.record.ReservationId ?? undefined) &&
      matches(states, entry.record.State),
    body.PaymentRequestIds,
    { enterpriseIds: enterprises },
    body.UpdatedUtc,
  );
  return { PaymentRequests: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** reservationGroups/getAll: UpdatedUtc uses the internal update time (the shape has none). */
export function reservationGroupsGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = ReservationGroupsGetAllRequestSchema.parse(raw);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const page = pageOf(
    ctx.model.reservationGroups,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') && inInterval(entry.updatedMs, body.UpdatedUtc),
    body.ReservationGroupIds,
    { enterpriseIds: enterprises },
    body.UpdatedUtc,
  );
  return { ReservationGroups: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** paymentRequests/add: creates Pending requests for existing customers; journaled. */
export function paymentRequestsAdd(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = PaymentRequestsAddRequestSchema.parse(raw);
  const model = ctx.model;
  const enterprise = requireEnterprise(ctx, body.EnterpriseId, 'EnterpriseId');
  body.PaymentRequests.forEach((item, index) => {
    // A customer of another chain names nothing for this enterprise, as in customers/update.
    if (model.customers.get(item.AccountId)?.chainId !== enterprise.ChainId) {
      throw new SimApiError(400, `PaymentRequests[${index}].AccountId: no such customer`);
    }
  });
  const now = model.clock.now();
  const created: PaymentRequest[] = body.PaymentRequests.map((item) => {
    const record: PaymentRequest = {
      Id: model.random.uuid(),
      EnterpriseId: enterprise.Id,
      AccountId: item.AccountId,
      CustomerId: item.AccountId,
      ReservationGroupId: null,
      ReservationId: null,
      State: 'Pending',
      Amount: grossAmount(
        item.Amount.Value,
        item.Amount.Currency,
        enterprise.taxRate,
        enterprise.taxRateCode,
      ),
      Type: item.Type,
      Reason: item.Reason,
      ExpirationUtc: item.ExpirationUtc,
      Description: item.Description,
      Notes: item.Notes ?? null,
      CreatedUtc: iso(now),
      UpdatedUtc: iso(now),
    };
    model.create(model.paymentRequests, 'paymentRequest', record, {
      enterpriseId: enterprise.Id,
      chainId: enterprise.ChainId,
      createdMs: now,
      updatedMs: now,
    });
    return record;
  });
  return { PaymentRequests: created, Cursor: created.at(-1)?.Id ?? null };
}

/**
 * loyaltyPrograms/update: applies `{Value}` updates to the chain's programs in order; journaled.
 * Each returned program is its final state, also for a program named twice.
 */
export function loyaltyProgramsUpdate(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = LoyaltyProgramsUpdateRequestSchema.parse(raw);
  const model = ctx.model;
  // A Portfolio Access Token names the chain (Authentication 3); another token has one.
  const chainId = requireChain(ctx, body.ChainId, 'ChainId');
  body.LoyaltyProgramUpdates.forEach((update, index) => {
    const entry = model.loyaltyPrograms.get(update.LoyaltyProgramId);
    if (!entry || entry.chainId !== chainId) {
      throw new SimApiError(
        400,
        `LoyaltyProgramUpdates[${index}].LoyaltyProgramId: no such loyalty program`,
      );
    }
  });
  for (const update of body.LoyaltyProgramUpdates) {
    const patch: Partial<LoyaltyProgram> = {};
    if (update.Name) patch.Name = update.Name.Value;
    if (update.Type) patch.Type = update.Type.Value;
    if (update.Subscription) patch.Subscription = update.Subscription.Value;
    model.update(model.loyaltyPrograms, 'loyaltyProgram', update.LoyaltyProgramId, patch);
  }
  // Updates apply in order; a program named twice is returned as the request leaves it, in each
  // element that names it (an element read before a later update would show a stale program).
  const updated: LoyaltyProgram[] = body.LoyaltyProgramUpdates.map(
    (update) => model.loyaltyPrograms.get(update.LoyaltyProgramId)!.record,
  );
  return { LoyaltyPrograms: updated, Cursor: updated.at(-1)?.Id ?? null };
}

/** True for a value customers/update treats as "left out or blank" (rule 1). */
export function isBlank(value: unknown): value is null | undefined | '' {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

/** Copies the non-blank fields of `source` (rule 1: blanks never clear a stored value). */
export function nonBlank<T extends object>(source: T | null | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!source) return out;
  for (const [key, value] of Object.entries(source)) {
    if (!isBlank(value)) Object.assign(out, { [key]: value });
  }
  return out;
}
