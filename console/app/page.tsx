import { SignInForm } from "./ui/auth/sign-in-form";

/** Sign-in: the only screen shown without a session. */
export default function SignInPage() {
  return <SignInForm />;
}
