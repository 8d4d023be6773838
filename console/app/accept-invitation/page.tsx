import { Suspense } from "react";
import { AcceptInvitationForm } from "../ui/auth/accept-invitation-form";
import { Loading } from "../ui/common/states";

/**
 * Accepting an invitation: `/accept-invitation/?token=…`, the link an owner or admin was shown
 * (or that was mailed). Shown signed out as well as signed in.
 */
export default function AcceptInvitationPage() {
  return (
    <Suspense fallback={<Loading label="Opening the invitation…" />}>
      <AcceptInvitationForm />
    </Suspense>
  );
}
